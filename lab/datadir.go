package lab

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/crdlab/crdlab/lab/internal/proc"
	"github.com/crdlab/crdlab/lab/kubeminor"
	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/lang"
	"github.com/crdlab/crdlab/lab/multicall"
	"github.com/crdlab/crdlab/lab/writefile"
)

// A DataDir says which versions wrote it, in dataDirMeta, written once a lab
// on it was ready. A lab of another Kubernetes or etcd minor version
// refuses it, and leaves it as it is: an apiserver reads objects stored by
// a newer one wrongly or not at all, and etcd's data format only moves
// forward.

const dataDirMeta = "crdlab-data.json"

type dataMeta struct {
	Kubernetes string    `json:"kubernetes"`
	Etcd       string    `json:"etcd"`
	Crdlab     string    `json:"crdlab"`
	Written    time.Time `json:"written"`
}

// checkDataDir refuses a DataDir written by versions other than v, or one whose
// version record is unreadable. A DataDir with etcd data but no record (of a
// crdlab before the record existed) is taken; etcd itself then checks it.
func checkDataDir(dataDir string, v multicall.Versions) error {
	path := filepath.Join(dataDir, dataDirMeta)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return lang.Errorf("%w: %s: %w", ErrDataDir, dataDir, err)
	}
	var m dataMeta
	if err := json.Unmarshal(data, &m); err != nil {
		return lang.Errorf("%w: %s: unreadable %s (%q); the folder was left as it is", ErrDataDir, dataDir, path, err.Error())
	}
	if v.Kubernetes == "" || v.Etcd == "" {
		return nil // a build without module versions (go run): nothing to compare
	}
	if kubeminor.Of(m.Kubernetes) != kubeminor.Of(v.Kubernetes) || etcdMinor(m.Etcd) != etcdMinor(v.Etcd) {
		if other := kubeminor.Of(m.Kubernetes); other != kubeminor.Of(v.Kubernetes) && kubeminor.Patch(other) != "" {
			return lang.Errorf("%w: %s holds the data of Kubernetes %s (etcd %s), written by crdlab %s; this lab runs Kubernetes %s (etcd %s) and does not start on it; it was left as it is: start it with --kubernetes %s, or use another --data-dir",
				ErrDataDir, dataDir, m.Kubernetes, m.Etcd, m.Crdlab, v.Kubernetes, v.Etcd, other)
		}
		return lang.Errorf("%w: %s holds the data of Kubernetes %s (etcd %s), written by crdlab %s; this lab runs Kubernetes %s (etcd %s) and does not start on it; it was left as it is: use the crdlab that wrote it, or another --data-dir",
			ErrDataDir, dataDir, m.Kubernetes, m.Etcd, m.Crdlab, v.Kubernetes, v.Etcd)
	}
	return nil
}

// etcdMinor returns "v3.7" of etcd's "v3.7.1" (a Kubernetes version's
// minor is kubeminor's to read).
func etcdMinor(version string) string {
	parts := strings.SplitN(version, ".", 3)
	if len(parts) < 2 {
		return version
	}
	return parts[0] + "." + parts[1]
}

// labVersions are crdlab's, with the Kubernetes version kube (the lab's).
func labVersions(kube kubernetes) multicall.Versions {
	v := multicall.BuildVersions()
	if kube.comps != nil || v.Kubernetes != "" {
		v.Kubernetes = kube.version
	}
	return v
}

// writeDataDirMeta writes dataDirMeta in dataDir, if there is one, for the
// versions v.
func writeDataDirMeta(dataDir string, v multicall.Versions) error {
	if dataDir == "" || v.Kubernetes == "" {
		return nil
	}
	data, err := json.MarshalIndent(dataMeta{Kubernetes: v.Kubernetes, Etcd: v.Etcd, Crdlab: v.Crdlab, Written: time.Now()}, "", "  ")
	if err != nil {
		return err
	}
	return writefile.Atomic(filepath.Join(dataDir, dataDirMeta), append(data, '\n'), 0o600)
}

// explainDataDirError says, when etcd could not start on dataDir, that the
// data is what it refused (etcd's log in the work dir dir says so).
func explainDataDirError(err error, dataDir string, dir control.Dir) error {
	if dataDir == "" {
		return err
	}
	cause := proc.LastError(dir.Log(multicall.Etcd))
	if cause == "" {
		return err
	}
	return lang.Errorf("%w: etcd cannot use the data in %s: %q; it was left as it is (move it away, or start with another --data-dir); the etcd log is %s",
		ErrDataDir, filepath.Join(dataDir, "etcd"), cause, dir.Log(multicall.Etcd))
}
