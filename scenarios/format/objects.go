package format

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/ext"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// DecodeObjects reads one or more YAML (or JSON) objects.
func DecodeObjects(data []byte) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []*unstructured.Unstructured
	for i := 1; ; i++ {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, fmt.Errorf("object %d: %w", i, err)
		}
		if m == nil {
			continue // an empty document
		}
		u := &unstructured.Unstructured{Object: m}
		if err := checkObject(u); err != nil {
			return nil, fmt.Errorf("object %d: %w", i, err)
		}
		out = append(out, u)
	}
	if len(out) == 0 {
		return nil, errors.New("no object in the file")
	}
	return out, nil
}

// ToObjects turns an inline YAML object into an unstructured one.
func ToObjects(m map[string]any) ([]*unstructured.Unstructured, error) {
	v, err := JSONCopy(m)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: v.(map[string]any)}
	if err := checkObject(u); err != nil {
		return nil, err
	}
	return []*unstructured.Unstructured{u}, nil
}

func checkObject(u *unstructured.Unstructured) error {
	var missing []string
	if u.GetAPIVersion() == "" {
		missing = append(missing, "apiVersion")
	}
	if u.GetKind() == "" {
		missing = append(missing, "kind")
	}
	if u.GetName() == "" && u.GetGenerateName() == "" {
		missing = append(missing, "metadata.name")
	}
	if len(missing) > 0 {
		return fmt.Errorf("missing %s", strings.Join(missing, ", "))
	}
	return nil
}

// JSONCopy turns YAML-decoded values into the types unstructured objects
// hold (int64, float64, map[string]any, []any).
func JSONCopy(v any) (any, error) {
	data, err := utiljson.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	err = utiljson.Unmarshal(data, &out)
	return out, err
}

// RefOf reads the object an expect.object names.
func RefOf(m map[string]any) (ObjectRef, error) {
	u := &unstructured.Unstructured{Object: m}
	var missing []string
	apiVersion, _ := m["apiVersion"].(string)
	kind, _ := m["kind"].(string)
	if apiVersion == "" {
		missing = append(missing, "apiVersion")
	}
	if kind == "" {
		missing = append(missing, "kind")
	}
	if len(missing) > 0 {
		return ObjectRef{}, fmt.Errorf("missing %s", strings.Join(missing, ", "))
	}
	ref := ObjectRef{APIVersion: apiVersion, Kind: kind}
	meta, _ := m["metadata"].(map[string]any)
	if meta != nil {
		ref.Name, _ = meta["name"].(string)
		ref.Namespace, _ = meta["namespace"].(string)
	}
	if ref.Name == "" && len(u.GetLabels()) > 0 {
		var sel []string
		for k, v := range u.GetLabels() {
			sel = append(sel, k+"="+v)
		}
		ref.Selector = strings.Join(sel, ",")
	}
	return ref, nil
}

var celEnv = func() *cel.Env {
	env, err := cel.NewEnv(
		cel.Variable("object", cel.DynType),
		cel.Variable("objects", cel.ListType(cel.DynType)),
		ext.Strings(),
	)
	if err != nil {
		panic(err)
	}
	return env
}()

// CompileCEL compiles an expect step's expression; it must be a bool.
func CompileCEL(expr string) (cel.Program, error) {
	ast, iss := celEnv.Compile(expr)
	if iss.Err() != nil {
		msg, _, _ := strings.Cut(iss.Err().Error(), "\n") // the first line; the rest draws the position
		return nil, errors.New(strings.TrimPrefix(msg, "ERROR: "))
	}
	if t := ast.OutputType(); t != cel.BoolType && t != cel.DynType {
		return nil, fmt.Errorf("the expression is a %s, want a bool", t)
	}
	return celEnv.Program(ast)
}
