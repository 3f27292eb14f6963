package install_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crdlab/crdlab/lab/labtest/install"
	"github.com/crdlab/crdlab/lab/labtest/internal/releasetest"
)

// Variables of TestDownloadProcess, set by TestConcurrentProcesses.
const (
	processURLEnv   = "INSTALL_TEST_URL"
	processCacheEnv = "INSTALL_TEST_CACHE"
)

// downloaders is how many test packages start at once.
const downloaders = 4

// gateArchive holds the archive's response until all the downloaders
// have said (GET /started) that they are about to download: the others
// are then waiting on the lock, or find the cache complete.
func gateArchive(rel *releasetest.Server) {
	rel.Before(func(w http.ResponseWriter) bool {
		deadline := time.Now().Add(30 * time.Second)
		for rel.Count("/started") < downloaders {
			if time.Now().After(deadline) {
				http.Error(w, "the other downloaders did not start", http.StatusInternalServerError)
				return false
			}
			time.Sleep(5 * time.Millisecond)
		}
		return true
	})
}

func started(url string) error {
	resp, err := http.Get(url + "/started")
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// TestDownloadProcess is one of TestConcurrentProcesses's test packages.
func TestDownloadProcess(t *testing.T) {
	url := os.Getenv(processURLEnv)
	if url == "" {
		t.Skip("run by TestConcurrentProcesses")
	}
	if err := started(url); err != nil {
		t.Fatal(err)
	}
	bin, err := install.Download(context.Background(), install.Options{Version: releasetest.Version, DownloadURL: url, CacheDir: os.Getenv(processCacheEnv)})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("BINARY=" + bin)
}

// Four processes starting at once on an empty cache download the archive
// once; all get the same binary.
func TestConcurrentProcesses(t *testing.T) {
	cache := isolate(t)
	rel := releasetest.New(t, releasetest.Options{})
	gateArchive(rel)
	var cmds []*exec.Cmd
	outs := make([]*bytes.Buffer, downloaders)
	for i := range downloaders {
		cmd := exec.Command(os.Args[0], "-test.run=^TestDownloadProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), processURLEnv+"="+rel.URL(), processCacheEnv+"="+cache)
		outs[i] = &bytes.Buffer{}
		cmd.Stdout, cmd.Stderr = outs[i], outs[i]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	want := filepath.Join(cache, releasetest.Version, runtime.GOOS+"-"+runtime.GOARCH, "crdlab")
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("process %d: %v\n%s", i, err, outs[i])
			continue
		}
		if got := binaryLine(outs[i].String()); got != want {
			t.Errorf("process %d got %q, want %s\n%s", i, got, want, outs[i])
		}
	}
	if n := rel.ArchiveCount(); n != 1 {
		t.Errorf("%d processes downloaded the archive %d times, want once", downloaders, n)
	}
}

func binaryLine(out string) string {
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if b, ok := strings.CutPrefix(sc.Text(), "BINARY="); ok {
			return b
		}
	}
	return ""
}

// The same within one process: each Download opens the lock file itself.
func TestConcurrentGoroutines(t *testing.T) {
	cache := isolate(t)
	rel := releasetest.New(t, releasetest.Options{})
	gateArchive(rel)
	var wg sync.WaitGroup
	bins := make([]string, downloaders)
	errs := make([]error, downloaders)
	for i := range downloaders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if errs[i] = started(rel.URL()); errs[i] != nil {
				return
			}
			bins[i], errs[i] = install.Download(context.Background(), install.Options{Version: releasetest.Version, DownloadURL: rel.URL(), CacheDir: cache})
		}()
	}
	wg.Wait()
	for i := range downloaders {
		if errs[i] != nil || bins[i] != bins[0] {
			t.Errorf("downloader %d: %s, %v (the first got %s)", i, bins[i], errs[i], bins[0])
		}
	}
	if n := rel.ArchiveCount(); n != 1 {
		t.Errorf("%d goroutines downloaded the archive %d times, want once", downloaders, n)
	}
}
