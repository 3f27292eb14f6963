package labtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// crd is a CustomResourceDefinition read from a file.
type crd struct {
	obj  *unstructured.Unstructured
	file string
}

// readCRDs reads the CRDs of paths (folders or files of .yaml, .yml and
// .json manifests; other kinds are ignored, as envtest does).
func readCRDs(paths []string, errorIfMissing bool) ([]crd, error) {
	var out []crd
	for i, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			if !errorIfMissing && errors.Is(err, os.ErrNotExist) {
				continue
			}
			return nil, fmt.Errorf("%w: CRDDirectoryPaths[%d] %s does not exist; give the folder of your CRD manifests (config/crd/bases in a kubebuilder project)", ErrCRDPath, i, p)
		}
		files, err := manifestFiles(p, fi)
		if err != nil {
			return nil, fmt.Errorf("%w: CRDDirectoryPaths[%d] %s: %w", ErrCRDPath, i, p, err)
		}
		found := 0
		for _, f := range files {
			crds, err := readCRDFile(f)
			if err != nil {
				return nil, fmt.Errorf("%w: %w", ErrCRDPath, err)
			}
			found += len(crds)
			out = append(out, crds...)
		}
		if found == 0 && errorIfMissing {
			return nil, fmt.Errorf("%w: CRDDirectoryPaths[%d] %s holds no CustomResourceDefinition", ErrCRDPath, i, p)
		}
	}
	return out, nil
}

func readCRDFile(path string) ([]crd, error) {
	docs, err := readObjects(path)
	if err != nil {
		return nil, err
	}
	var out []crd
	for _, d := range docs {
		if d.obj.GetKind() != "CustomResourceDefinition" {
			continue
		}
		if d.obj.GetAPIVersion() != "apiextensions.k8s.io/v1" {
			return nil, fmt.Errorf("%s: document %d: %s is %s, want apiextensions.k8s.io/v1", path, d.n, d.obj.GetName(), d.obj.GetAPIVersion())
		}
		out = append(out, crd{obj: d.obj, file: path})
	}
	return out, nil
}

// manifestFiles are the manifests of path: itself, or the .yaml, .yml and
// .json files of the folder (not its subfolders), as envtest reads them.
func manifestFiles(path string, fi os.FileInfo) ([]string, error) {
	if !fi.IsDir() {
		return []string{path}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range entries {
		switch filepath.Ext(e.Name()) {
		case ".yaml", ".yml", ".json":
			if !e.IsDir() {
				files = append(files, filepath.Join(path, e.Name()))
			}
		}
	}
	return files, nil
}

// document is one object of a manifest file, n counting from 1.
type document struct {
	n   int
	obj *unstructured.Unstructured
}

// readObjects reads the objects of a YAML or JSON file; empty documents
// are left out.
func readObjects(path string) ([]document, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []document
	for n := 1; ; n++ {
		var obj map[string]any
		if err := dec.Decode(&obj); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, fmt.Errorf("%s: document %d: %w", path, n, err)
		}
		if obj != nil {
			out = append(out, document{n: n, obj: &unstructured.Unstructured{Object: obj}})
		}
	}
}

// installCRDs creates the CRDs (or updates them, when they exist already:
// an attached lab or a cluster they were installed on before) and waits
// until they are established and served.
func installCRDs(ctx context.Context, cfg *rest.Config, crds []crd) error {
	if len(crds) == 0 {
		return nil
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	client := dyn.Resource(crdResource)
	for _, c := range crds {
		_, err := client.Create(ctx, c.obj.DeepCopy(), metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			err = updateCRD(ctx, client, c.obj)
		}
		if err != nil {
			return fmt.Errorf("unable to install CRD %s from %s: %w", c.obj.GetName(), c.file, err)
		}
	}
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return err
	}
	for _, c := range crds {
		name := c.obj.GetName()
		err := wait.PollUntilContextCancel(ctx, 50*time.Millisecond, true, func(ctx context.Context) (bool, error) {
			got, err := client.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, nil
			}
			return established(got) && served(disc, got), nil
		})
		if err != nil {
			return fmt.Errorf("CRD %s from %s was not established: %w", name, c.file, err)
		}
	}
	return nil
}

func updateCRD(ctx context.Context, client dynamic.ResourceInterface, want *unstructured.Unstructured) error {
	return wait.PollUntilContextCancel(ctx, 50*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		cur, err := client.Get(ctx, want.GetName(), metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		next := want.DeepCopy()
		next.SetResourceVersion(cur.GetResourceVersion())
		_, err = client.Update(ctx, next, metav1.UpdateOptions{})
		if apierrors.IsConflict(err) {
			return false, nil
		}
		return err == nil, err
	})
}

func established(crd *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Established" && m["status"] == "True" {
			return true
		}
	}
	return false
}

// served reports whether discovery lists the CRD's resource in each of its
// served versions.
func served(disc discovery.DiscoveryInterface, crd *unstructured.Unstructured) bool {
	group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
	plural, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "plural")
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	for _, v := range versions {
		m, _ := v.(map[string]any)
		if served, _ := m["served"].(bool); !served {
			continue
		}
		name, _ := m["name"].(string)
		list, err := disc.ServerResourcesForGroupVersion(group + "/" + name)
		if err != nil {
			return false
		}
		if !slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == plural }) {
			return false
		}
	}
	return true
}
