package aggregated

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// APIServices are the aggregated groups a lab registers, by APIService
// name.
var APIServices = map[string]struct{ Group, Version string }{
	"v1beta1.metrics.k8s.io":  {"metrics.k8s.io", "v1beta1"},
	"v1alpha1.lab.crdlab.dev": {SummaryGroupVersion.Group, SummaryGroupVersion.Version},
}

// placeholderEndpoint is the address of the aggregated server's
// EndpointSlice. The aggregator's availability check wants an endpoint, and
// endpoints may not be loopback addresses; nothing connects to this one
// (TEST-NET-1, reserved for documentation): the aggregator dials the
// Service's cluster IP, through the egress proxy, which connects to
// 127.0.0.1.
const placeholderEndpoint = "192.0.2.1"

// Register makes srv reachable through the kube-apiserver's aggregator: its
// Service, an EndpointSlice (marked ready again if it exists), the egress
// route from the Service's cluster IP to srv, and the APIServices. An
// APIService of APIServices that another writer changed (a learner's own
// route for lab.crdlab.dev) is taken back whole, and an Event on it says
// from whom and what it was: Register returns those words, one per route
// taken back.
func Register(ctx context.Context, c client.Client, srv *Server, egress *Egress) ([]string, error) {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: ServiceName, Namespace: ServiceNamespace,
			Labels: map[string]string{"app.kubernetes.io/managed-by": "crdlab"}},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "https", Port: ServicePort,
			TargetPort: intstr.FromInt32(ServicePort), Protocol: corev1.ProtocolTCP}}},
	}
	err := c.Create(ctx, svc)
	if apierrors.IsAlreadyExists(err) {
		err = c.Get(ctx, client.ObjectKeyFromObject(svc), svc)
	}
	if err != nil {
		return nil, fmt.Errorf("aggregated API server: service: %w", err)
	}
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Name: ServiceName, Namespace: ServiceNamespace, Labels: map[string]string{
			discoveryv1.LabelServiceName: ServiceName,
			discoveryv1.LabelManagedBy:   "crdlab",
		}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{placeholderEndpoint}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}},
		Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("https"), Port: ptr.To(int32(ServicePort)), Protocol: ptr.To(corev1.ProtocolTCP)}},
	}
	if err := c.Create(ctx, slice); apierrors.IsAlreadyExists(err) {
		if err := MarkReady(ctx, c, true); err != nil { // started again
			return nil, err
		}
	} else if err != nil {
		return nil, fmt.Errorf("aggregated API server: endpointslice: %w", err)
	}
	egress.Route(net.JoinHostPort(svc.Spec.ClusterIP, fmt.Sprint(ServicePort)), srv.Addr())

	var said []string
	for _, name := range slices.Sorted(maps.Keys(APIServices)) {
		msg, err := registerRoute(ctx, c, name, srv.CABundle())
		if err != nil {
			return said, err
		}
		if msg != "" {
			said = append(said, msg)
		}
	}
	return said, nil
}

// registerRoute applies the lab's APIService name, routing its group to
// the lab's Service with the server's CA, and returns what it said when it
// took the route back from another writer ("" when it did not).
func registerRoute(ctx context.Context, c client.Client, name string, ca []byte) (string, error) {
	gv := APIServices[name]
	// Every field of the spec, insecureSkipTLSVerify too: applied with
	// force, the lab then owns each, and a learner's true (which the
	// apiserver refuses beside a caBundle) turns false.
	spec := map[string]any{
		"group": gv.Group, "version": gv.Version,
		"groupPriorityMinimum": int64(100), "versionPriority": int64(100),
		"service":               map[string]any{"namespace": ServiceNamespace, "name": ServiceName, "port": int64(ServicePort)},
		"caBundle":              caBundle(ca),
		"insecureSkipTLSVerify": false,
	}
	old := &unstructured.Unstructured{}
	old.SetAPIVersion("apiregistration.k8s.io/v1")
	old.SetKind("APIService")
	if err := c.Get(ctx, client.ObjectKey{Name: name}, old); apierrors.IsNotFound(err) {
		old = nil
	} else if err != nil {
		return "", fmt.Errorf("aggregated API server: APIService %s: %w", name, err)
	}
	apisvc := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiregistration.k8s.io/v1",
		"kind":       "APIService",
		"metadata":   map[string]any{"name": name, "labels": map[string]any{"app.kubernetes.io/managed-by": "crdlab"}},
		"spec":       spec,
	}}
	if err := c.Patch(ctx, apisvc, client.Apply, client.FieldOwner(FieldManager), client.ForceOwnership); err != nil {
		return "", fmt.Errorf("aggregated API server: APIService %s: %w", name, err)
	}
	what, by := takenBack(old, spec)
	if what == "" {
		return "", nil
	}
	return recordTakenBack(ctx, c, apisvc, by, what)
}

// MarkReady sets whether the aggregated API server's endpoint is ready. A
// stopped server's endpoint marked not ready is what a dead Pod's would be:
// the aggregator's availability controller notices at once, rather than at
// its next check, within 30 s.
func MarkReady(ctx context.Context, c client.Client, ready bool) error {
	slice := &discoveryv1.EndpointSlice{}
	key := client.ObjectKey{Namespace: ServiceNamespace, Name: ServiceName}
	if err := c.Get(ctx, key, slice); err != nil {
		return fmt.Errorf("aggregated API server: endpointslice: %w", err)
	}
	base := slice.DeepCopy()
	for i := range slice.Endpoints {
		slice.Endpoints[i].Conditions.Ready = ptr.To(ready)
	}
	if err := c.Patch(ctx, slice, client.MergeFrom(base)); err != nil {
		return fmt.Errorf("aggregated API server: endpointslice: %w", err)
	}
	return nil
}

// WaitServed waits until the kube-apiserver at cfg serves every group of
// APIServices through its aggregator. An APIService turns Available in etcd
// a moment before the aggregator's proxy learns it, through an informer of
// its own; until then a request gets 503. A lab is ready only once a
// 'kubectl top' would work.
func WaitServed(ctx context.Context, cfg *rest.Config) error {
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return err
	}
	defer hc.CloseIdleConnections()
	return waitDiscovery(ctx, hc, strings.TrimSuffix(cfg.Host, "/"), nil, 20*time.Millisecond, "served through the aggregator")
}

// waitDiscovery polls, every so often, the discovery document of each
// group of APIServices at base, sending header, until each answers 200.
func waitDiscovery(ctx context.Context, hc *http.Client, base string, header http.Header, every time.Duration, what string) error {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for _, gv := range APIServices {
		url := base + "/apis/" + gv.Group + "/" + gv.Version
		for {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			if err != nil {
				return err
			}
			maps.Copy(req.Header, header)
			resp, err := hc.Do(req)
			if err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					break
				}
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("aggregated API server: %s/%s not %s: %w", gv.Group, gv.Version, what, context.Cause(ctx))
			case <-tick.C:
			}
		}
	}
	return nil
}
