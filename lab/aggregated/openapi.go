package aggregated

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"
	generatedopenapi "k8s.io/kubernetes/pkg/generated/openapi"
)

// OpenAPIModelName names LabSummary in the OpenAPI documents.
func (LabSummary) OpenAPIModelName() string { return "dev.crdlab.lab.v1alpha1.LabSummary" }

// OpenAPIModelName names LabSummaryList in the OpenAPI documents.
func (LabSummaryList) OpenAPIModelName() string { return "dev.crdlab.lab.v1alpha1.LabSummaryList" }

// openAPIDefinitions are Kubernetes' (metrics.k8s.io among them) and the
// lab summary's: the server publishes them, and builds its field managers
// from them.
func openAPIDefinitions(ref common.ReferenceCallback) map[string]common.OpenAPIDefinition {
	defs := generatedopenapi.GetOpenAPIDefinitions(ref)
	intProp := func(desc string) spec.Schema {
		return spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"integer"}, Format: "int32", Description: desc}}
	}
	strProp := func(desc string) spec.Schema {
		return spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"string"}, Description: desc}}
	}
	defs[LabSummary{}.OpenAPIModelName()] = common.OpenAPIDefinition{
		Schema: spec.Schema{SchemaProps: spec.SchemaProps{
			Description: "LabSummary counts what the lab runs; computed on each request, never stored.",
			Type:        []string{"object"},
			Properties: map[string]spec.Schema{
				"apiVersion":  strProp("APIVersion of the object."),
				"kind":        strProp("Kind of the object."),
				"metadata":    {SchemaProps: spec.SchemaProps{Default: map[string]any{}, Ref: ref(metav1.ObjectMeta{}.OpenAPIModelName())}},
				"nodes":       intProp("Simulated nodes."),
				"readyNodes":  intProp("Simulated nodes that are Ready."),
				"pods":        intProp("Pods of every namespace."),
				"runningPods": intProp("Pods that are Running."),
				"namespaces":  intProp("Namespaces."),
				"servedBy":    strProp("The server that answered."),
				"uptime":      strProp("How long the aggregated API server has run."),
			},
		}},
		Dependencies: []string{metav1.ObjectMeta{}.OpenAPIModelName()},
	}
	defs[LabSummaryList{}.OpenAPIModelName()] = common.OpenAPIDefinition{
		Schema: spec.Schema{SchemaProps: spec.SchemaProps{
			Type: []string{"object"},
			Properties: map[string]spec.Schema{
				"apiVersion": strProp("APIVersion of the object."),
				"kind":       strProp("Kind of the object."),
				"metadata":   {SchemaProps: spec.SchemaProps{Default: map[string]any{}, Ref: ref(metav1.ListMeta{}.OpenAPIModelName())}},
				"items": {SchemaProps: spec.SchemaProps{Type: []string{"array"}, Items: &spec.SchemaOrArray{Schema: &spec.Schema{
					SchemaProps: spec.SchemaProps{Default: map[string]any{}, Ref: ref(LabSummary{}.OpenAPIModelName())}}}}},
			},
			Required: []string{"items"},
		}},
		Dependencies: []string{metav1.ListMeta{}.OpenAPIModelName(), LabSummary{}.OpenAPIModelName()},
	}
	return defs
}
