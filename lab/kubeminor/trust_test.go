package kubeminor_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/crdlab/crdlab/lab/kubeminor"
	"github.com/crdlab/crdlab/lab/lang"
)

// plantComponents writes to dir a crdlab-k8s-<minor> that says it was
// built as crdlab version crdlab and, whenever it runs, creates the file
// it returns: that file's absence proves it was not run.
func plantComponents(t *testing.T, dir, minor, crdlab string, mode os.FileMode) (path, marker string) {
	t.Helper()
	marker = filepath.Join(t.TempDir(), "ran")
	path = filepath.Join(dir, kubeminor.Name(minor))
	script := "#!/bin/sh\ntouch '" + marker + "'\n[ \"$1\" = version ] || exit 2\n" +
		"echo '{\"crdlab\":\"" + crdlab + "\",\"kubernetes\":\"" + kubeminor.Patch(minor) + "\",\"go\":\"go1.26.0\"}'\n"
	if err := os.WriteFile(path, []byte(script), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // whatever the umask
		t.Fatal(err)
	}
	return path, marker
}

func ran(marker string) bool {
	_, err := os.Stat(marker)
	return err == nil
}

// findIn looks for minor in $CRDLAB_COMPONENTS_DIR=dir only.
func findIn(t *testing.T, dir string, w kubeminor.Where) (*kubeminor.Components, error) {
	t.Helper()
	t.Setenv(kubeminor.DirEnv, dir)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	if w.Self == "" {
		w.Self = filepath.Join(t.TempDir(), "crdlab")
	}
	return kubeminor.Find(context.Background(), "1.36", w)
}

// A components executable that anyone but the current user or root could
// have written is refused before it runs, naming the path, why, and how to
// mend it; as 'crdlab version' looks (NoDownload) and as a lab starts.
func TestFindRefusesAnExecutableOthersCouldWrite(t *testing.T) {
	const checkout = "(devel) 0123456789ab"
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T) (path, marker string)
		says  []string
	}{{
		name: "writable by all",
		plant: func(t *testing.T) (string, string) {
			return plantComponents(t, t.TempDir(), "1.36", checkout, 0o777)
		},
		says: []string{"writable by group and others (mode 0777)", "chmod go-w"},
	}, {
		name: "writable by its group",
		plant: func(t *testing.T) (string, string) {
			return plantComponents(t, t.TempDir(), "1.36", checkout, 0o775)
		},
		says: []string{"writable by its group (mode 0775)", "chmod go-w"},
	}, {
		name: "another user's",
		plant: func(t *testing.T) (string, string) {
			path, marker := plantComponents(t, t.TempDir(), "1.36", checkout, 0o755)
			if err := os.Chown(path, 65534, 65534); err != nil {
				t.Skipf("chown to uid 65534 needs root: %v", err)
			}
			return path, marker
		},
		says: []string{"belongs to uid 65534", "chown"},
	}, {
		name: "another user's, mode 0777",
		plant: func(t *testing.T) (string, string) {
			path, marker := plantComponents(t, t.TempDir(), "1.36", checkout, 0o777)
			if err := os.Chown(path, 65534, 65534); err != nil {
				t.Skipf("chown to uid 65534 needs root: %v", err)
			}
			return path, marker
		},
		says: []string{"belongs to uid 65534"},
	}, {
		name: "in a folder writable by all",
		plant: func(t *testing.T) (string, string) {
			dir := t.TempDir()
			if err := os.Chmod(dir, 0o777); err != nil {
				t.Fatal(err)
			}
			return plantComponents(t, dir, "1.36", checkout, 0o755)
		},
		says: []string{"writable by group and others (mode 0777)", "chmod go-w", "move crdlab-k8s-1.36 to a folder only you can write to"},
	}, {
		name: "in another user's folder",
		plant: func(t *testing.T) (string, string) {
			dir := t.TempDir()
			path, marker := plantComponents(t, dir, "1.36", checkout, 0o755)
			if err := os.Chown(dir, 65534, 65534); err != nil {
				t.Skipf("chown to uid 65534 needs root: %v", err)
			}
			return path, marker
		},
		says: []string{"belongs to uid 65534"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			path, marker := tc.plant(t)
			for _, noDownload := range []bool{true, false} {
				_, err := findIn(t, filepath.Dir(path), kubeminor.Where{Crdlab: checkout, NoDownload: noDownload})
				if !errors.Is(err, kubeminor.ErrUntrusted) {
					t.Fatalf("Find: %v; want ErrUntrusted", err)
				}
				for _, want := range append([]string{"crdlab-k8s-1.36", path, "does not run it"}, tc.says...) {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("the refusal %q does not say %q", err, want)
					}
				}
				if strings.Count(err.Error(), "\n") != 0 {
					t.Errorf("the refusal is not one line: %q", err)
				}
			}
			if ran(marker) {
				t.Errorf("%s was run", path)
			}
		})
	}
}

// In Chinese (Where.Lang), the refusal says the same in Chinese words: the
// executable, the path and the command that mends it as they are.
func TestFindRefusesInChinese(t *testing.T) {
	path, marker := plantComponents(t, t.TempDir(), "1.36", "(devel) 0123456789ab", 0o777)
	_, err := findIn(t, filepath.Dir(path), kubeminor.Where{Crdlab: "(devel) 0123456789ab", NoDownload: true, Lang: lang.ZH})
	if !errors.Is(err, kubeminor.ErrUntrusted) {
		t.Fatalf("Find: %v; want ErrUntrusted", err)
	}
	want := "crdlab-k8s-1.36：组件可执行文件不受信任：" + path + " 可以被同组用户和其他人写入（权限 0777），所以 crdlab 不会运行它：chmod go-w " + path + "，或者删除它"
	if err.Error() != want {
		t.Errorf("the refusal in Chinese:\n  %q, want\n  %q", err, want)
	}
	if ran(marker) {
		t.Errorf("%s was run", path)
	}
}

// A release build runs only the components executables of its release, by
// their SHA-256 linked into it: another is refused before it runs, and one
// it has no digest for too.
func TestFindRunsOnlyTheReleasesExecutable(t *testing.T) {
	dir := t.TempDir()
	path, marker := plantComponents(t, dir, "1.36", "v0.2.0", 0o755)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	digest := hex.EncodeToString(sum[:])

	for name, digests := range map[string]map[string]string{
		"another digest": {"1.36": strings.Repeat("0", 64)},
		"no digest":      {"1.35": digest},
	} {
		_, err := findIn(t, dir, kubeminor.Where{Crdlab: "v0.2.0", Release: true, Digests: digests})
		if !errors.Is(err, kubeminor.ErrUntrusted) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: Find = %v; want ErrUntrusted naming %s", name, err, path)
		}
		if ran(marker) {
			t.Fatalf("%s: %s was run", name, path)
		}
	}
	c, err := findIn(t, dir, kubeminor.Where{Crdlab: "v0.2.0", Release: true, Digests: map[string]string{"1.36": digest}})
	if err != nil || c.Path != path {
		t.Fatalf("Find with the release's digest = %+v, %v; want %s", c, err, path)
	}
	if !ran(marker) {
		t.Errorf("%s was found without being asked its version", path)
	}
}

// A build from a checkout accepts only components built from its commit;
// one that knows no commit of its own (a test binary) cannot compare.
func TestFindWantsTheCheckoutsCommit(t *testing.T) {
	for _, tc := range []struct {
		crdlab, components string
		ok                 bool
	}{
		{"(devel) 0123456789ab", "(devel) 0123456789ab", true},
		{"(devel) 0123456789ab", "v0.0.0-20261204210220-0123456789ab+dirty 0123456789ab", true},
		{"v0.0.0-20261204210220-0123456789ab 0123456789ab", "v0.0.0-20261204210220-0123456789ab", true},
		{"v0.0.0-20261204210220-0123456789ab", "(devel) 0123456789ab", true},
		{"(devel)", "(devel) fedcba987654", true},
		{"(devel) 0123456789ab", "(devel) fedcba987654", false},
		{"(devel) 0123456789ab", "(devel)", false},
		{"(devel) 0123456789ab", "v0.2.0", false},
		{"v0.0.0-20261204210220-0123456789ab+dirty", "v0.0.0-20261205000000-fedcba987654", false},
	} {
		dir := t.TempDir()
		path, _ := plantComponents(t, dir, "1.36", tc.components, 0o755)
		c, err := findIn(t, dir, kubeminor.Where{Crdlab: tc.crdlab})
		switch {
		case tc.ok && (err != nil || c.Path != path):
			t.Errorf("crdlab %q, components %q: Find = %+v, %v; want %s", tc.crdlab, tc.components, c, err, path)
		case !tc.ok && (!errors.Is(err, kubeminor.ErrWrongVersion) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "make components K8S=1.36")):
			t.Errorf("crdlab %q, components %q: Find = %+v, %v; want ErrWrongVersion naming %s and make components", tc.crdlab, tc.components, c, err, path)
		}
	}
}

// make release links each crdlab with its components' digests: the -X flag
// of .ci/make/release.sh sets what Here reads.
func TestReleaseLinksTheDigests(t *testing.T) {
	script, err := os.ReadFile(filepath.Join("..", "..", ".ci", "make", "release.sh"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`-X (\S+)=\$digests`).FindSubmatch(script)
	if m == nil {
		t.Fatalf("release.sh links no -X <variable>=$digests into crdlab")
	}
	a, b := strings.Repeat("a", 64), strings.Repeat("b", 64)
	bin := filepath.Join(t.TempDir(), "printdigests")
	build := exec.Command("go", "build", "-o", bin, "-ldflags", "-s -w -X "+string(m[1])+"=1.35:"+a+",1.36:"+b, "./testdata/printdigests")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./testdata/printdigests: %v\n%s", err, out)
	}
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := "1.35 " + a + "\n1.36 " + b + "\n"; string(out) != want {
		t.Errorf("a build with -X %s=1.35:<a>,1.36:<b> has the digests %q, want %q", m[1], out, want)
	}
	if d := kubeminor.Here("v9.8.7", true).Digests; len(d) != 0 {
		t.Errorf("a build without the flag has digests %v", d)
	}
}
