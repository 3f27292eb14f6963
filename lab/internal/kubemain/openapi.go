package kubemain

import (
	"fmt"
	"reflect"
	"unsafe"

	genericapiserver "k8s.io/apiserver/pkg/server"
	builder2 "k8s.io/kube-openapi/pkg/builder"
	"k8s.io/kube-openapi/pkg/cached"
	openapicommon "k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/common/restfuladapter"
	"k8s.io/kube-openapi/pkg/handler"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/crdlab/crdlab/lab/internal/kubeversion"
)

// openAPIFile is where LazyOpenAPIV2 lives, named by its ErrPatch errors.
const openAPIFile = "lab/internal/kubemain/openapi.go"

// LazyOpenAPIV2 makes the OpenAPI v2 document of kube-apiserver's
// built-in APIs be built when it is first asked for, rather than in
// PrepareRun, before the apiserver serves: ~0.25 s of CPU on every boot
// (every route of every built-in group, then its definitions pruned), for
// a document few clients read (kubectl and client-go read v3; the
// aggregated /openapi/v2, which merges this one, was already built when
// first asked for). The document is upstream's, built by upstream's
// code from the same routes and configuration (routes.OpenAPI.InstallV2
// does exactly this), served by upstream's handler at the same path.
//
// chain is the aggregator's server (CreateServerChain's); the patch goes
// to the one server of its delegation chain that serves the core API
// group (/api/v1), kube-apiserver's own, whose StaticOpenAPISpec nothing
// reads. apiextensions-apiserver's, whose static spec its CRD OpenAPI
// controller merges from, is left as upstream builds it. The v3 documents
// are built as upstream builds them.
func LazyOpenAPIV2(chain *genericapiserver.GenericAPIServer) error {
	var kube *genericapiserver.GenericAPIServer
	for d := genericapiserver.DelegationTarget(chain); d != nil; d = d.NextDelegate() {
		s, ok := d.(*genericapiserver.GenericAPIServer)
		if ok && servesCoreGroup(s) {
			kube = s
			break
		}
	}
	if kube == nil {
		return openAPIPatchError("no server of the delegation chain serves /api/v1")
	}
	config, err := unexported[*openapicommon.Config](kube, "openAPIConfig")
	if err != nil {
		return err
	}
	skip, err := unexported[bool](kube, "skipOpenAPIInstallation")
	if err != nil {
		return err
	}
	cfg, _ := config.Interface().(*openapicommon.Config)
	if cfg == nil || skip.Bool() {
		return nil // upstream installs no v2 document on it either
	}
	// PrepareRun installs v2 only when openAPIConfig is set.
	config.Set(reflect.Zero(config.Type()))

	container := kube.Handler.GoRestfulContainer
	document := cached.Once(cached.Func(func() (*spec.Swagger, string, error) {
		sw, err := builder2.BuildOpenAPISpecFromRoutes(restfuladapter.AdaptWebServices(container.RegisteredWebServices()), cfg)
		if err != nil {
			return nil, "", fmt.Errorf("building the OpenAPI v2 document of the built-in APIs: %w", err)
		}
		sw.Definitions = handler.PruneDefaults(sw.Definitions)
		return sw, "built-in", nil
	}))
	service := handler.NewOpenAPIServiceLazy(document)
	service.RegisterOpenAPIVersionedService("/openapi/v2", kube.Handler.NonGoRestfulMux)
	kube.OpenAPIVersionedService = service
	return nil
}

// servesCoreGroup says whether s serves the legacy core group.
func servesCoreGroup(s *genericapiserver.GenericAPIServer) bool {
	if s.Handler == nil || s.Handler.GoRestfulContainer == nil {
		return false
	}
	for _, ws := range s.Handler.GoRestfulContainer.RegisteredWebServices() {
		if ws.RootPath() == "/api/v1" {
			return true
		}
	}
	return false
}

// unexported returns s's field name, settable, when it is a T.
func unexported[T any](s *genericapiserver.GenericAPIServer, name string) (reflect.Value, error) {
	field := reflect.ValueOf(s).Elem().FieldByName(name)
	if !field.IsValid() {
		return reflect.Value{}, openAPIPatchError("GenericAPIServer has no field %s", name)
	}
	if want := reflect.TypeFor[T](); field.Type() != want {
		return reflect.Value{}, openAPIPatchError("GenericAPIServer's %s is a %s, not a %s", name, field.Type(), want)
	}
	return reflect.NewAt(field.Type(), unsafe.Pointer(field.UnsafeAddr())).Elem(), nil
}

// openAPIPatchError is an ErrPatch naming the Kubernetes version and
// openAPIFile.
func openAPIPatchError(format string, args ...any) error {
	return fmt.Errorf("kube-apiserver %s: %s: %w: update %s", kubeversion.Module(), fmt.Sprintf(format, args...), ErrPatch, openAPIFile)
}
