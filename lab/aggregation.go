package lab

import (
	"context"
	"encoding/base64"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/crdlab/crdlab/lab/aggregated"
)

// APIServices are the aggregated groups the lab registers, by APIService
// name.
var APIServices = map[string]struct{ Group, Version string }{
	"v1beta1.metrics.k8s.io":  {"metrics.k8s.io", "v1beta1"},
	"v1alpha1.lab.crdlab.dev": {aggregated.SummaryGroupVersion.Group, aggregated.SummaryGroupVersion.Version},
}

// placeholderEndpoint is the address of the aggregated server's
// EndpointSlice. The aggregator's availability check wants an endpoint, and
// endpoints may not be loopback addresses; nothing connects to this one
// (TEST-NET-1, reserved for documentation): the aggregator dials the
// Service's cluster IP, through the egress proxy, which connects to
// 127.0.0.1.
const placeholderEndpoint = "192.0.2.1"

// aggregation configures the apiserver for aggregated API servers: the
// front-proxy client certificate it presents to them, the request-header
// CA they check it with, and the egress selector that sends its traffic
// into the "cluster" through the lab's proxy.
func (l *Lab) aggregation(args *envtest.Arguments, certDir string) error {
	fp, err := writeFrontProxyCerts(certDir)
	if err != nil {
		return fmt.Errorf("unable to make the front-proxy certificates: %w", err)
	}
	sock, tempDir := filepath.Join(l.workDir, "egress.sock"), ""
	if len(sock) > maxSocketPath {
		if tempDir, err = os.MkdirTemp("", "crdlab-egress-"); err != nil {
			return fmt.Errorf("unable to make a folder for the egress socket: %w", err)
		}
		sock = filepath.Join(tempDir, "egress.sock")
	}
	cfgPath := filepath.Join(l.workDir, "egress-selector.yaml")
	if err := os.WriteFile(cfgPath, []byte(fmt.Sprintf(egressConfig, sock)), 0o600); err != nil {
		return fmt.Errorf("unable to write the egress selector configuration: %w", err)
	}
	if l.egress, err = startEgress(sock, l.opts.Logger); err != nil {
		_ = os.RemoveAll(tempDir)
		return err
	}
	l.egress.tempDir = tempDir
	args.Set("requestheader-client-ca-file", fp.ca)
	args.Set("requestheader-allowed-names", frontProxyName)
	args.Set("requestheader-username-headers", "X-Remote-User")
	args.Set("requestheader-group-headers", "X-Remote-Group")
	args.Set("requestheader-extra-headers-prefix", "X-Remote-Extra-")
	args.Set("proxy-client-cert-file", fp.cert)
	args.Set("proxy-client-key-file", fp.key)
	args.Set("egress-selector-config-file", cfgPath)
	return nil
}

// startAggregated starts the aggregated API server and registers it: its
// Service, EndpointSlice and APIServices, and the egress route from the
// Service's cluster IP to it.
func (l *Lab) startAggregated(ctx context.Context) error {
	dir := filepath.Join(l.workDir, "aggregated")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("unable to create %s: %w", dir, err)
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, l.kubeconfig, 0o600); err != nil {
		return fmt.Errorf("unable to write %s: %w", kubeconfig, err)
	}
	srv, err := aggregated.Start(context.WithoutCancel(ctx), aggregated.Options{
		Config:     l.RESTConfig(),
		Kubeconfig: kubeconfig,
		Dir:        dir,
		Addr:       l.aggAddr,
		Logger:     l.opts.Logger,
		Requests:   l.opts.Requests,
	})
	if err != nil {
		return err
	}
	l.mu.Lock()
	l.aggregated, l.aggAddr = srv, srv.Addr()
	l.mu.Unlock()

	c := l.client
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: aggregated.ServiceName, Namespace: aggregated.ServiceNamespace,
			Labels: map[string]string{"app.kubernetes.io/managed-by": "crdlab"}},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "https", Port: aggregated.ServicePort,
			TargetPort: intstr.FromInt32(aggregated.ServicePort), Protocol: corev1.ProtocolTCP}}},
	}
	if err := c.Create(ctx, svc); apierrors.IsAlreadyExists(err) {
		err = c.Get(ctx, client.ObjectKeyFromObject(svc), svc)
	} else if err != nil {
		return fmt.Errorf("aggregated API server: service: %w", err)
	}
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Name: aggregated.ServiceName, Namespace: aggregated.ServiceNamespace, Labels: map[string]string{
			discoveryv1.LabelServiceName: aggregated.ServiceName,
			discoveryv1.LabelManagedBy:   "crdlab",
		}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{placeholderEndpoint}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}},
		Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("https"), Port: ptr.To(int32(aggregated.ServicePort)), Protocol: ptr.To(corev1.ProtocolTCP)}},
	}
	if err := c.Create(ctx, slice); apierrors.IsAlreadyExists(err) {
		err = l.markEndpoint(ctx, true) // started again
		if err != nil {
			return err
		}
	} else if err != nil {
		return fmt.Errorf("aggregated API server: endpointslice: %w", err)
	}
	l.egress.route(net.JoinHostPort(svc.Spec.ClusterIP, fmt.Sprint(aggregated.ServicePort)), srv.Addr())

	for name, gv := range APIServices {
		apisvc := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "apiregistration.k8s.io/v1",
			"kind":       "APIService",
			"metadata":   map[string]any{"name": name, "labels": map[string]any{"app.kubernetes.io/managed-by": "crdlab"}},
			"spec": map[string]any{
				"group": gv.Group, "version": gv.Version,
				"groupPriorityMinimum": int64(100), "versionPriority": int64(100),
				"service":  map[string]any{"namespace": aggregated.ServiceNamespace, "name": aggregated.ServiceName, "port": int64(aggregated.ServicePort)},
				"caBundle": base64.StdEncoding.EncodeToString(srv.CABundle()),
			},
		}}
		if err := c.Patch(ctx, apisvc, client.Apply, client.FieldOwner("crdlab"), client.ForceOwnership); err != nil {
			return fmt.Errorf("aggregated API server: APIService %s: %w", name, err)
		}
	}
	return nil
}

// stopAggregated stops the aggregated API server; its APIServices stay,
// and turn unavailable. Unless the lab itself is stopping, its endpoint is
// marked not ready, as a dead Pod's would be, which the aggregator's
// availability controller notices at once (rather than at its next check,
// within 30 s).
func (l *Lab) stopAggregated(labStopping bool) {
	l.mu.Lock()
	srv := l.aggregated
	l.aggregated = nil
	l.mu.Unlock()
	if srv == nil {
		return
	}
	srv.Stop()
	if !labStopping {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := l.markEndpoint(ctx, false); err != nil {
			l.opts.Logger.Error(err, "unable to mark the aggregated API server's endpoint not ready")
		}
	}
}

// markEndpoint sets whether the aggregated API server's endpoint is ready.
func (l *Lab) markEndpoint(ctx context.Context, ready bool) error {
	slice := &discoveryv1.EndpointSlice{}
	key := client.ObjectKey{Namespace: aggregated.ServiceNamespace, Name: aggregated.ServiceName}
	if err := l.client.Get(ctx, key, slice); err != nil {
		return fmt.Errorf("aggregated API server: endpointslice: %w", err)
	}
	base := slice.DeepCopy()
	for i := range slice.Endpoints {
		slice.Endpoints[i].Conditions.Ready = ptr.To(ready)
	}
	if err := l.client.Patch(ctx, slice, client.MergeFrom(base)); err != nil {
		return fmt.Errorf("aggregated API server: endpointslice: %w", err)
	}
	return nil
}

// AggregatedRunning reports whether the aggregated API server runs.
func (l *Lab) AggregatedRunning() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.aggregated != nil
}
