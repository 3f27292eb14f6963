package webhooks

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// ErrManifest: a webhook manifest that cannot be read or served.
var ErrManifest = errors.New("unusable webhook manifest")

// Manifests are the webhook configurations read from a user's files.
type Manifests struct {
	Mutating   []*admissionregistrationv1.MutatingWebhookConfiguration
	Validating []*admissionregistrationv1.ValidatingWebhookConfiguration

	source map[string]string // kind/name → the file it came from
}

// Empty reports whether there is no configuration.
func (m *Manifests) Empty() bool { return len(m.Mutating) == 0 && len(m.Validating) == 0 }

// Read reads the MutatingWebhookConfigurations and
// ValidatingWebhookConfigurations in paths: files, or folders whose .yaml,
// .yml and .json files are read (not their subfolders). Services are
// skipped (crdlab maps every service to the user's server), and so are
// kustomize's own files; any other document is an error that names its
// file, as is a configuration crdlab cannot serve (see Front.Admission).
func Read(paths []string) (*Manifests, error) {
	m := &Manifests{source: map[string]string{}}
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrManifest, err)
		}
		files := []string{p}
		if fi.IsDir() {
			entries, err := os.ReadDir(p)
			if err != nil {
				return nil, fmt.Errorf("%w: %w", ErrManifest, err)
			}
			files = files[:0]
			for _, e := range entries {
				if !e.IsDir() && slices.Contains([]string{".yaml", ".yml", ".json"}, filepath.Ext(e.Name())) {
					files = append(files, filepath.Join(p, e.Name()))
				}
			}
		}
		for _, f := range files {
			if err := m.readFile(f); err != nil {
				return nil, err
			}
		}
	}
	if m.Empty() {
		return nil, fmt.Errorf("%w: no MutatingWebhookConfiguration nor ValidatingWebhookConfiguration in %s", ErrManifest, strings.Join(paths, ", "))
	}
	return m, nil
}

// kustomizeFiles hold kustomize's settings, not manifests.
var kustomizeFiles = []string{"kustomization.yaml", "kustomization.yml", "kustomizeconfig.yaml", "kustomizeconfig.yml"}

func (m *Manifests) readFile(path string) error {
	if slices.Contains(kustomizeFiles, filepath.Base(path)) {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrManifest, err)
	}
	defer f.Close()
	r := utilyaml.NewYAMLReader(bufio.NewReader(f))
	for n := 1; ; n++ {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: %s: %w", ErrManifest, path, err)
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		var meta struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Metadata   struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			return fmt.Errorf("%w: %s, document %d: %w", ErrManifest, path, n, err)
		}
		if meta.Kind == "" && meta.APIVersion == "" {
			if isComments(doc) {
				continue
			}
			return fmt.Errorf("%w: %s, document %d: no apiVersion and kind", ErrManifest, path, n)
		}
		at := fmt.Sprintf("%s, %s %s", path, meta.Kind, meta.Metadata.Name)
		isConfig := meta.Kind == "MutatingWebhookConfiguration" || meta.Kind == "ValidatingWebhookConfiguration"
		switch {
		case meta.Kind == "Service" && meta.APIVersion == "v1":
			continue
		case !isConfig:
			return fmt.Errorf("%w: %s: kind %q: webhook manifests hold MutatingWebhookConfigurations and ValidatingWebhookConfigurations (Services are skipped); CRDs go with the CRDs, other objects come from your suite",
				ErrManifest, at, meta.Kind)
		case meta.APIVersion != admissionregistrationv1.SchemeGroupVersion.String():
			return fmt.Errorf("%w: %s: apiVersion %q: webhook configurations are %s", ErrManifest, at, meta.APIVersion, admissionregistrationv1.SchemeGroupVersion)
		case meta.Kind == "MutatingWebhookConfiguration":
			var c admissionregistrationv1.MutatingWebhookConfiguration
			if err := yaml.UnmarshalStrict(doc, &c); err != nil {
				return fmt.Errorf("%w: %s: %w", ErrManifest, at, err)
			}
			m.Mutating = append(m.Mutating, &c)
		default:
			var c admissionregistrationv1.ValidatingWebhookConfiguration
			if err := yaml.UnmarshalStrict(doc, &c); err != nil {
				return fmt.Errorf("%w: %s: %w", ErrManifest, at, err)
			}
			m.Validating = append(m.Validating, &c)
		}
		if meta.Metadata.Name == "" {
			return fmt.Errorf("%w: %s: metadata.name is empty", ErrManifest, at)
		}
		key := meta.Kind + "/" + meta.Metadata.Name
		if prev, ok := m.source[key]; ok {
			return fmt.Errorf("%w: %s: also in %s", ErrManifest, at, prev)
		}
		m.source[key] = path
	}
}

// isComments reports whether a YAML document holds only comments.
func isComments(doc []byte) bool {
	for line := range strings.SplitSeq(string(doc), "\n") {
		if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "#") && l != "---" {
			return false
		}
	}
	return true
}

// Source names the file a configuration came from, for errors.
func (m *Manifests) Source(kind, name string) string {
	if s, ok := m.source[kind+"/"+name]; ok {
		return s
	}
	return kind + " " + name
}
