package multicall_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/crdlab/crdlab/lab/multicall"
)

// TestBootstrapObjectsAsUpstreamMakesThem boots, each on an empty etcd
// through envtest, kube-apiserver as upstream builds it
// (k8s.io/kubernetes/cmd/kube-apiserver, unpatched) and crdlab's, whose
// bootstrap post-start hooks make their objects at once rather than after
// their first second, and checks that both made the same bootstrap
// objects: every ClusterRole, ClusterRoleBinding, Role, RoleBinding and
// PriorityClass, byte for byte but for what the apiserver sets on each
// write (uid, resourceVersion, creationTimestamp, managedFields' time).
// It also checks that both serve the same OpenAPI documents, byte for
// byte: /openapi/v2, which crdlab's builds when first asked for
// (kubemain.LazyOpenAPIV2), the /openapi/v3 root and every group's.
//
// On 1.37, crdlab's is this binary's; the standalone binaries are
// $CRDLAB_STANDALONE_ASSETS ('make standalone') when set, else built here.
// Each other minor of $CRDLAB_TEST_KUBERNETES is compared too, on
// '$CRDLAB_BINARY envtest --kubernetes <minor>'s folder against
// $CRDLAB_STANDALONE_ASSETS/<minor>.
func TestBootstrapObjectsAsUpstreamMakesThem(t *testing.T) {
	ctrllog.SetLogger(logr.Discard())
	t.Run("1.37", func(t *testing.T) {
		patched, err := multicall.Link(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		compareBootstrapObjects(t, standaloneAssets(t), patched)
	})
	for _, minor := range strings.Fields(os.Getenv("CRDLAB_TEST_KUBERNETES")) {
		if minor == "1.37" {
			continue
		}
		t.Run(minor, func(t *testing.T) {
			cli, standalone := os.Getenv("CRDLAB_BINARY"), os.Getenv("CRDLAB_STANDALONE_ASSETS")
			if cli == "" || standalone == "" {
				t.Fatalf("CRDLAB_TEST_KUBERNETES=%s: CRDLAB_BINARY must name bin/crdlab and CRDLAB_STANDALONE_ASSETS the standalone binaries, %s's in its folder %s (make standalone)", minor, minor, minor)
			}
			out, err := exec.Command(cli, "envtest", "--kubernetes", minor, "--dir", t.TempDir()).Output()
			if err != nil {
				t.Fatalf("crdlab envtest --kubernetes %s: %v", minor, err)
			}
			compareBootstrapObjects(t, filepath.Join(standalone, minor), strings.TrimSpace(string(out)))
		})
	}
}

// compareBootstrapObjects boots envtest on upstream's assets, then on
// patched's, and compares what their bootstrap hooks made.
func compareBootstrapObjects(t *testing.T, upstream, patched string) {
	t.Helper()
	want, _ := bootstrapObjects(t, upstream)
	got, log := bootstrapObjects(t, patched)
	for _, line := range []string{
		`"bootstrap objects made at once" hook="rbac/bootstrap-roles"`,
		`"bootstrap objects made at once" hook="scheduling/bootstrap-system-priority-classes"`,
	} {
		if !strings.Contains(log, line) {
			t.Errorf("crdlab's kube-apiserver did not log %s: its hook did not make the objects itself\n%s", line, lastLines(log, 40))
		}
	}
	if len(want) < 100 {
		t.Fatalf("upstream's kube-apiserver made %d bootstrap objects: want the whole bootstrap policy", len(want))
	}
	if len(want[openAPIKey+"/openapi/v2"]) < 1e6 || len(want[openAPIKey+"/openapi/v3/apis/apps/v1"]) < 1e5 {
		t.Fatalf("upstream's kube-apiserver served no whole OpenAPI v2 document, or no v3 document of apps/v1")
	}
	var diffs []string
	for key, w := range want {
		switch g, ok := got[key]; {
		case !ok:
			diffs = append(diffs, key+": made by upstream's kube-apiserver, not by crdlab's")
		case g != w && strings.HasPrefix(key, openAPIKey):
			diffs = append(diffs, key+": "+firstDifference(w, g))
		case g != w:
			diffs = append(diffs, key+":\n  upstream: "+w+"\n  crdlab:   "+g)
		}
	}
	for key := range got {
		if _, ok := want[key]; !ok {
			diffs = append(diffs, key+": made by crdlab's kube-apiserver, not by upstream's")
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Errorf("%d of %d bootstrap objects differ:\n%s", len(diffs), len(want), strings.Join(diffs[:min(len(diffs), 10)], "\n"))
	}
}

// standaloneAssets returns a folder of etcd and kube-apiserver built as
// their own binaries: $CRDLAB_STANDALONE_ASSETS, or built into a temporary
// folder.
func standaloneAssets(t *testing.T) string {
	t.Helper()
	if dir := os.Getenv("CRDLAB_STANDALONE_ASSETS"); dir != "" {
		return dir
	}
	dir := t.TempDir()
	for name, pkg := range map[string]string{
		"etcd":           "../internal/tools/standalone/etcd",
		"kube-apiserver": "k8s.io/kubernetes/cmd/kube-apiserver",
	} {
		if out, err := exec.Command("go", "build", "-o", filepath.Join(dir, name), pkg).CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, out)
		}
	}
	return dir
}

// bootstrapObjects starts envtest on the etcd and kube-apiserver of assets
// and returns the bootstrap objects once it is ready, each as its JSON
// without what every write sets by key kind/namespace/name, and
// kube-apiserver's log.
func bootstrapObjects(t *testing.T, assets string) (map[string]string, string) {
	t.Helper()
	var log syncBuffer
	env := &envtest.Environment{BinaryAssetsDirectory: assets}
	api := env.ControlPlane.GetAPIServer()
	api.Out, api.Err = &log, &log
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("envtest on %s: %v\n%s", assets, err, lastLines(log.String(), 40))
	}
	defer func() {
		if err := env.Stop(); err != nil {
			t.Errorf("envtest on %s: stop: %v", assets, err)
		}
	}()
	cs := kubernetes.NewForConfigOrDie(cfg)
	ctx := context.Background()
	all := metav1.ListOptions{}
	objects := map[string]string{}
	add := func(kind string, list any, err error) {
		if err != nil {
			t.Fatalf("envtest on %s: list %s: %v", assets, kind, err)
		}
		raw, err := json.Marshal(list)
		if err != nil {
			t.Fatal(err)
		}
		var items struct{ Items []map[string]any }
		if err := json.Unmarshal(raw, &items); err != nil {
			t.Fatal(err)
		}
		for _, item := range items.Items {
			meta, _ := item["metadata"].(map[string]any)
			for _, field := range []string{"uid", "resourceVersion", "creationTimestamp"} {
				delete(meta, field)
			}
			managed, _ := meta["managedFields"].([]any)
			for _, entry := range managed {
				if e, ok := entry.(map[string]any); ok {
					delete(e, "time")
				}
			}
			normalized, err := json.Marshal(item)
			if err != nil {
				t.Fatal(err)
			}
			ns, _ := meta["namespace"].(string)
			name, _ := meta["name"].(string)
			objects[kind+"/"+ns+"/"+name] = string(normalized)
		}
	}
	rbac := cs.RbacV1()
	crs, err := rbac.ClusterRoles().List(ctx, all)
	add("ClusterRole", crs, err)
	crbs, err := rbac.ClusterRoleBindings().List(ctx, all)
	add("ClusterRoleBinding", crbs, err)
	roles, err := rbac.Roles("").List(ctx, all)
	add("Role", roles, err)
	rbs, err := rbac.RoleBindings("").List(ctx, all)
	add("RoleBinding", rbs, err)
	pcs, err := cs.SchedulingV1().PriorityClasses().List(ctx, all)
	add("PriorityClass", pcs, err)

	get := func(path string) []byte {
		raw, err := cs.Discovery().RESTClient().Get().AbsPath(path).SetHeader("Accept", "application/json").DoRaw(ctx)
		if err != nil {
			t.Fatalf("envtest on %s: GET %s: %v", assets, path, err)
		}
		objects[openAPIKey+path] = string(raw)
		return raw
	}
	get("/openapi/v2")
	var root struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(get("/openapi/v3"), &root); err != nil {
		t.Fatalf("envtest on %s: /openapi/v3: %v", assets, err)
	}
	for path, p := range root.Paths {
		raw, err := cs.Discovery().RESTClient().Get().RequestURI(p.ServerRelativeURL).SetHeader("Accept", "application/json").DoRaw(ctx)
		if err != nil {
			t.Fatalf("envtest on %s: GET %s: %v", assets, p.ServerRelativeURL, err)
		}
		objects[openAPIKey+"/openapi/v3/"+path] = string(raw)
	}
	return objects, log.String()
}

// openAPIKey begins the keys of OpenAPI documents among the objects.
const openAPIKey = "OpenAPI/"

// firstDifference says where two long documents first differ.
func firstDifference(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-60)
	return fmt.Sprintf("%d and %d bytes, first different at byte %d:\n  upstream: …%s…\n  crdlab:   …%s…", len(a), len(b), i, a[from:min(len(a), i+60)], b[from:min(len(b), i+60)])
}

// syncBuffer is a bytes.Buffer that kube-apiserver's stdout and stderr
// copiers may write at once.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
