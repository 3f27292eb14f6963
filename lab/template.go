package lab

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/crdlab/crdlab/lab/internal/controlplane"
	"github.com/crdlab/crdlab/lab/multicall"
)

// A new kube-apiserver bootstraps its storage before it reports healthy:
// default namespaces, about a hundred RBAC roles and bindings, priority
// classes, flow-control settings, each a write through admission to etcd.
// A lab whose etcd data is ephemeral starts instead from a copy of an etcd
// data dir that a kube-apiserver of the same version has bootstrapped once
// (the "template", kept in the user's cache dir), so the bootstrap finds
// everything in place and only reads.

// templateFormat changes when what goes into a template changes.
const templateFormat = "1"

// templateDir is where the template for a Kubernetes version ("v1.36.5":
// the lab's, kubernetes.version) is kept: a template of another Kubernetes
// version is never used.
func templateDir(version string) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(cache, "crdlab", "etcd-bootstrapped-"+version+"-"+templateFormat), nil
}

// seedEtcd fills dataDir with a copy of the template for the Kubernetes
// version (binDir's), making the template first if there is none. It reports whether it did; on any failure the
// lab boots from an empty data dir as envtest would, so a template is only
// ever an optimisation.
func seedEtcd(ctx context.Context, dataDir, version, binDir string, opts Options) bool {
	tmpl, err := templateDir(version)
	if err != nil {
		return false
	}
	if _, err := os.Stat(filepath.Join(tmpl, "member")); err != nil {
		opts.Progress(Progress{Phase: PhaseEtcdTemplate})
		if err := makeTemplate(ctx, tmpl, binDir, opts); err != nil {
			opts.Logger.Info("unable to make an etcd template; booting without", "error", err.Error())
			return false
		}
	}
	if err := copyTree(tmpl, dataDir); err != nil {
		opts.Logger.Info("unable to copy the etcd template; booting without", "error", err.Error())
		_ = os.RemoveAll(dataDir)
		return false
	}
	return true
}

// makeTemplate boots etcd and kube-apiserver of binDir once on a fresh
// data dir, stops them once the apiserver is ready (its bootstrap done),
// and moves the data dir to tmpl.
func makeTemplate(ctx context.Context, tmpl, binDir string, opts Options) error {
	if err := os.MkdirAll(filepath.Dir(tmpl), 0o700); err != nil {
		return err
	}
	work, err := os.MkdirTemp(filepath.Dir(tmpl), ".make-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	data := filepath.Join(work, "etcd")
	if err := os.MkdirAll(data, 0o700); err != nil {
		return err
	}
	cp := &controlplane.Plane{
		Own:  true,
		Etcd: controlplane.Etcd{Path: filepath.Join(binDir, multicall.Etcd), DataDir: data, LogPath: filepath.Join(work, "etcd.log")},
		APIServer: controlplane.APIServer{
			Path: filepath.Join(binDir, multicall.KubeAPIServer), CertDir: filepath.Join(work, "certs"),
			LogPath: filepath.Join(work, "kube-apiserver.log"),
		},
	}
	if err := cp.Prepare(); err != nil {
		return err
	}
	if err := cp.Build(childEnv(), opts.StartTimeout); err != nil {
		return err
	}
	startErr := cp.Start(ctx, opts.StartTimeout)
	if err := errors.Join(cp.Stop(opts.StopTimeout)...); err != nil || startErr != nil {
		return fmt.Errorf("unable to boot a control plane for the template: %w", errors.Join(startErr, err))
	}
	// Another lab may have made one meanwhile: the first rename wins.
	if err := os.Rename(data, tmpl); err != nil {
		if _, statErr := os.Stat(filepath.Join(tmpl, "member")); statErr == nil {
			return nil
		}
		return err
	}
	return nil
}

// copyTree copies the regular files and folders under src to dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o700)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		return copyFile(path, target)
	})
}

// copyFile copies src to dst, leaving a hole wherever src has a MiB of
// zeros. The template's WAL is a 64 MB segment etcd preallocated, all zeros
// but its first few hundred KB: a sparse copy writes those KB instead of
// 64 MB at every boot, and etcd preallocates the rest again when it opens
// the segment.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	buf := make([]byte, 1<<20)
	var size int64
	for {
		n, readErr := io.ReadFull(in, buf)
		if n > 0 {
			chunk := buf[:n]
			if bytes.Count(chunk, []byte{0}) == n {
				_, err = out.Seek(int64(n), io.SeekCurrent)
			} else {
				_, err = out.Write(chunk)
			}
			if err != nil {
				out.Close()
				return err
			}
			size += int64(n)
		}
		if readErr == io.EOF || readErr == io.ErrUnexpectedEOF {
			break
		}
		if readErr != nil {
			out.Close()
			return readErr
		}
	}
	if err := out.Truncate(size); err != nil { // a trailing hole
		out.Close()
		return err
	}
	return out.Close()
}
