package aggregated

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/uuid"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/wait"
	openapinamer "k8s.io/apiserver/pkg/endpoints/openapi"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	genericoptions "k8s.io/apiserver/pkg/server/options"
	"k8s.io/apiserver/pkg/util/compatibility"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/metrics/pkg/apis/metrics"
	metricsinstall "k8s.io/metrics/pkg/apis/metrics/install"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"

	"github.com/crdlab/crdlab/lab/internal/actor"
	"github.com/crdlab/crdlab/lab/internal/certs"
	"github.com/crdlab/crdlab/lab/timeline"
)

// Service is where the APIServices point: kube-system/crdlab-aggregated,
// port 443. Its certificate is valid for these names.
const (
	ServiceNamespace = "kube-system"
	ServiceName      = "crdlab-aggregated"
	ServicePort      = 443
)

// ServiceHosts are the DNS names of the Service, which the aggregator
// checks the server's certificate against.
func ServiceHosts() []string {
	return []string{ServiceName + "." + ServiceNamespace + ".svc", ServiceName + "." + ServiceNamespace + ".svc.cluster.local"}
}

// Options configures the server.
type Options struct {
	// Config reaches the kube-apiserver as an admin.
	Config *restclient.Config
	// Kubeconfig is the same, as a file: delegated authentication and
	// authorization read it.
	Kubeconfig string
	// CertFile and KeyFile are the serving certificate and its key, valid
	// for 127.0.0.1 and for ServiceHosts; CA is the PEM of the CA that
	// signed it, the APIServices' caBundle.
	CertFile, KeyFile string
	CA                []byte
	// ClientCAFile is kube-apiserver's --client-ca-file and FrontProxy its
	// front-proxy CA (--requestheader-client-ca-file): given both, the
	// server reads them from these files instead of from the ConfigMap
	// kube-system/extension-apiserver-authentication, where kube-apiserver
	// publishes the same CAs once it runs. Without, it reads the ConfigMap,
	// as aggregated API servers in a cluster do.
	ClientCAFile string
	FrontProxy   FrontProxyFiles
	// Addr to listen on; "" picks a free port on 127.0.0.1. A restarted
	// server listens where it did before.
	Addr string
	// Logger receives diagnostics.
	Logger logr.Logger
	// Requests, if set, receives a timeline event for each resource request
	// the server answers: who asked, for what.
	Requests timeline.Sink
}

// Server is a running aggregated API server.
type Server struct {
	addr     string
	caBundle []byte
	cancel   context.CancelFunc
	done     chan struct{}
}

// Start starts the server and returns once it serves.
func Start(ctx context.Context, opts Options) (*Server, error) {
	scheme := runtime.NewScheme()
	codecs := serializer.NewCodecFactory(scheme)
	metricsinstall.Install(scheme)
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"})
	scheme.AddUnversionedTypes(schema.GroupVersion{Version: "v1"},
		&metav1.Status{}, &metav1.APIVersions{}, &metav1.APIGroupList{}, &metav1.APIGroup{}, &metav1.APIResourceList{})
	// LabSummary is the same Go type in the internal and the served version:
	// nothing to convert.
	scheme.AddKnownTypes(SummaryGroupVersion, &LabSummary{}, &LabSummaryList{})
	scheme.AddKnownTypes(schema.GroupVersion{Group: SummaryGroupVersion.Group, Version: runtime.APIVersionInternal}, &LabSummary{}, &LabSummaryList{})
	metav1.AddToGroupVersion(scheme, SummaryGroupVersion)

	addr := opts.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("aggregated API server: unable to listen on %s: %w", addr, err)
	}
	secure := genericoptions.NewSecureServingOptions()
	secure.Listener = ln
	secure.BindAddress = net.ParseIP("127.0.0.1")
	secure.ServerCert.CertKey.CertFile = opts.CertFile
	secure.ServerCert.CertKey.KeyFile = opts.KeyFile

	authn := genericoptions.NewDelegatingAuthenticationOptions()
	authn.RemoteKubeConfigFile = opts.Kubeconfig
	if opts.ClientCAFile != "" && opts.FrontProxy.CA != "" {
		// What kube-apiserver publishes in that ConfigMap, from the
		// --requestheader-* flags the lab gives it (lab/aggregation.go).
		authn.SkipInClusterLookup = true
		authn.ClientCert.ClientCA = opts.ClientCAFile
		authn.RequestHeader.ClientCAFile = opts.FrontProxy.CA
		authn.RequestHeader.AllowedNames = []string{FrontProxyName}
		authn.RequestHeader.UsernameHeaders = []string{UserHeader}
		authn.RequestHeader.GroupHeaders = []string{GroupHeader}
		authn.RequestHeader.ExtraHeaderPrefixes = []string{ExtraHeaderPrefix}
	}
	authz := genericoptions.NewDelegatingAuthorizationOptions()
	authz.RemoteKubeConfigFile = opts.Kubeconfig
	authz.AlwaysAllowPaths = []string{"/healthz", "/readyz", "/livez"}

	cfg := genericapiserver.NewConfig(codecs)
	cfg.EffectiveVersion = compatibility.DefaultBuildEffectiveVersion()
	if err := secure.ApplyTo(&cfg.SecureServing); err != nil {
		ln.Close()
		return nil, fmt.Errorf("aggregated API server: serving: %w", err)
	}
	if err := applyLoopback(cfg); err != nil {
		ln.Close()
		return nil, fmt.Errorf("aggregated API server: loopback: %w", err)
	}
	if err := authn.ApplyTo(&cfg.Authentication, cfg.SecureServing, nil); err != nil {
		ln.Close()
		return nil, fmt.Errorf("aggregated API server: delegated authentication: %w", err)
	}
	if err := authz.ApplyTo(&cfg.Authorization); err != nil {
		ln.Close()
		return nil, fmt.Errorf("aggregated API server: delegated authorization: %w", err)
	}
	genericapiserver.AuthorizeClientBearerToken(cfg.LoopbackClientConfig, &cfg.Authentication, &cfg.Authorization)
	// The handlers run in this process: no priority and fairness, no
	// admission (nothing is written).
	cfg.FlowControl = nil
	namer := openapinamer.NewDefinitionNamer(scheme)
	cfg.OpenAPIConfig = genericapiserver.DefaultOpenAPIConfig(openAPIDefinitions, namer)
	cfg.OpenAPIConfig.Info.Title = "crdlab aggregated API"
	cfg.OpenAPIV3Config = genericapiserver.DefaultOpenAPIV3Config(openAPIDefinitions, namer)
	cfg.OpenAPIV3Config.Info.Title = "crdlab aggregated API"
	if opts.Requests != nil {
		cfg.BuildHandlerChainFunc = func(h http.Handler, c *genericapiserver.Config) http.Handler {
			// Inside the chain: the user is known, the request decoded.
			return genericapiserver.DefaultBuildHandlerChain(recordRequests(h, opts.Requests), c)
		}
	}

	// Its informers watch every Pod: in protobuf, as the lab's other
	// components do, the apiserver encodes each change once for all of them.
	informerConfig := restclient.CopyConfig(opts.Config)
	informerConfig.ContentType = runtime.ContentTypeProtobuf
	client, err := kubernetes.NewForConfig(informerConfig)
	if err != nil {
		ln.Close()
		return nil, err
	}
	factory := informers.NewSharedInformerFactory(client, 0)
	server, err := cfg.Complete(factory).New("crdlab-aggregated", genericapiserver.NewEmptyDelegate())
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("aggregated API server: %w", err)
	}

	// Stopping it is a Pod dying or the lab stopping: no graceful drain of
	// the aggregator's connections (the HTTP server's Shutdown took about a
	// second polling for them).
	server.ShutdownTimeout = 100 * time.Millisecond

	nodes := factory.Core().V1().Nodes().Lister()
	pods := factory.Core().V1().Pods().Lister()
	nss := factory.Core().V1().Namespaces().Lister()
	usage := &usageModel{replicaSets: factory.Apps().V1().ReplicaSets().Lister(), deployments: factory.Apps().V1().Deployments().Lister()}

	table := rest.NewDefaultTableConvertor(metrics.Resource("nodes"))
	metricsGroup := genericapiserver.NewDefaultAPIGroupInfo(metrics.GroupName, scheme, metav1.ParameterCodec, codecs)
	metricsGroup.VersionedResourcesStorageMap[metricsv1beta1.SchemeGroupVersion.Version] = map[string]rest.Storage{
		"nodes": &nodeMetrics{TableConvertor: table, nodes: nodes, pods: pods, usage: usage},
		"pods":  &podMetrics{TableConvertor: rest.NewDefaultTableConvertor(metrics.Resource("pods")), pods: pods, usage: usage},
	}
	metricsGroup.PrioritizedVersions = []schema.GroupVersion{metricsv1beta1.SchemeGroupVersion}
	if err := server.InstallAPIGroup(&metricsGroup); err != nil {
		ln.Close()
		return nil, fmt.Errorf("aggregated API server: %s: %w", metrics.GroupName, err)
	}
	labGroup := genericapiserver.NewDefaultAPIGroupInfo(SummaryGroupVersion.Group, scheme, metav1.ParameterCodec, codecs)
	labGroup.VersionedResourcesStorageMap[SummaryGroupVersion.Version] = map[string]rest.Storage{
		"summaries": &summaries{TableConvertor: rest.NewDefaultTableConvertor(SummaryGroupVersion.WithResource("summaries").GroupResource()),
			nodes: nodes, pods: pods, namespaces: nss, started: time.Now()},
	}
	labGroup.PrioritizedVersions = []schema.GroupVersion{SummaryGroupVersion}
	if err := server.InstallAPIGroup(&labGroup); err != nil {
		ln.Close()
		return nil, fmt.Errorf("aggregated API server: %s: %w", SummaryGroupVersion.Group, err)
	}

	runCtx, cancel := context.WithCancel(ctx)
	factory.Start(runCtx.Done())
	synced := []cache.InformerSynced{
		factory.Core().V1().Nodes().Informer().HasSynced, factory.Core().V1().Pods().Informer().HasSynced,
		factory.Core().V1().Namespaces().Informer().HasSynced, factory.Apps().V1().ReplicaSets().Informer().HasSynced,
		factory.Apps().V1().Deployments().Informer().HasSynced,
	}
	if err := waitForCaches(runCtx, synced...); err != nil {
		cancel()
		ln.Close()
		return nil, err
	}
	s := &Server{addr: ln.Addr().String(), caBundle: opts.CA, cancel: cancel, done: make(chan struct{})}
	prepared := server.PrepareRun()
	go func() {
		defer close(s.done)
		if err := prepared.RunWithContext(runCtx); err != nil && !errors.Is(err, context.Canceled) {
			opts.Logger.Error(err, "aggregated API server stopped")
		}
	}()
	return s, nil
}

// applyLoopback gives the server the certificate it serves its own
// loopback clients with, and their configuration: what
// SecureServingOptionsWithLoopback does, on an ECDSA key instead of two
// RSA keys it would make at every start (about 80 ms of CPU here, in the
// middle of a lab's boot).
func applyLoopback(cfg *genericapiserver.Config) error {
	ca, err := certs.NewCA(genericapiserver.LoopbackClientServerNameOverride+"-ca", 3*365*24*time.Hour)
	if err != nil {
		return err
	}
	certPEM, keyPEM, err := ca.Issue(genericapiserver.LoopbackClientServerNameOverride, x509.ExtKeyUsageServerAuth, genericapiserver.LoopbackClientServerNameOverride)
	if err != nil {
		return err
	}
	provider, err := dynamiccertificates.NewStaticSNICertKeyContent("self-signed loopback", certPEM, keyPEM, genericapiserver.LoopbackClientServerNameOverride)
	if err != nil {
		return err
	}
	// First, so that it overrides any other certificate for that name.
	cfg.SecureServing.SNICerts = append([]dynamiccertificates.SNICertKeyContentProvider{provider}, cfg.SecureServing.SNICerts...)
	cfg.LoopbackClientConfig, err = cfg.SecureServing.NewLoopbackClientConfig(uuid.New().String(), ca.PEM)
	return err
}

// waitForCaches waits until every informer has synced, checking each 5 ms
// (client-go's WaitForCacheSync checks each 100 ms).
func waitForCaches(ctx context.Context, synced ...cache.InformerSynced) error {
	err := wait.PollUntilContextCancel(ctx, 5*time.Millisecond, true, func(context.Context) (bool, error) {
		for _, ok := range synced {
			if !ok() {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("aggregated API server: its caches did not sync: %w", err)
	}
	return nil
}

// recordRequests records each resource request on the timeline, then
// serves it.
func recordRequests(next http.Handler, sink timeline.Sink) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if e, ok := requestEvent(r); ok {
			sink.Record(e)
		}
		next.ServeHTTP(w, r)
	})
}

func requestEvent(r *http.Request) (timeline.Event, bool) {
	info, ok := request.RequestInfoFrom(r.Context())
	if !ok || !info.IsResourceRequest {
		return timeline.Event{}, false
	}
	who := "?"
	if u, ok := request.UserFrom(r.Context()); ok {
		who = actor.OfRequest(u.GetName(), r.UserAgent())
	}
	kind := info.Resource
	switch {
	case info.APIGroup == metrics.GroupName && info.Resource == "nodes":
		kind = "NodeMetrics"
	case info.APIGroup == metrics.GroupName && info.Resource == "pods":
		kind = "PodMetrics"
	case info.Resource == "summaries":
		kind = "LabSummary"
	}
	name := info.Name
	if name == "" {
		name = "*"
	}
	return timeline.Event{
		Time: time.Now(), Actor: who, Verb: strings.ToUpper(info.Verb), Kind: kind, Namespace: info.Namespace, Name: name,
		Detail: "answered by the aggregated API server, routed by the aggregator; nothing stored",
	}, true
}

// Addr is where the server listens.
func (s *Server) Addr() string { return s.addr }

// CABundle is the certificate (and its CA) the server serves with, for the
// APIServices' caBundle.
func (s *Server) CABundle() []byte { return s.caBundle }

// Stop stops the server and waits until it has.
func (s *Server) Stop() {
	s.cancel()
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
	}
}
