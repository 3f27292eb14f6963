package lab

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/crdlab/crdlab/lab/internal/controlplane"
	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/lang"
)

// Lab is a running control plane: a real etcd and a real kube-apiserver,
// and the optional components, each a process of this program's own
// executable or a part of this process, all supervised by the lab.
type Lab struct {
	opts Options
	kube kubernetes           // the Kubernetes the lab serves
	dir  control.Dir          // its work dir
	made madeDirs             // the links to the components and what Stop removes
	cp   *controlplane.Plane  // etcd and kube-apiserver
	env  *envtest.Environment // installs only (see newInstaller)

	admin admin // the admin user

	components registry     // the optional components (registry.go)
	problems   problems     // what the lab lost for good (see Health)
	webhooks   userWebhooks // the user's own webhooks, behind the front
	baseline   *baseline    // etcd's content when Start returned, for Reset
}

// admin is the lab's admin user (group system:masters).
type admin struct {
	config     *rest.Config
	client     client.Client
	kubeconfig []byte
}

// madeDirs are the folders Start laid out.
type madeDirs struct {
	bin      string // the links to the components (kubernetes.link)
	ownDir   bool   // the work dir is a temporary one, removed by Stop
	etcdData string // an ephemeral etcd data dir, removed by Stop
}

// Errors of Start, StopComponent, StartComponent, StopNode and StartNode;
// each names the option or the name at fault.
var (
	// ErrPortInUse: Options.Port is taken.
	ErrPortInUse = errors.New("port in use")
	// ErrWorkDir: Options.WorkDir cannot be created or written.
	ErrWorkDir = errors.New("work dir unusable")
	// ErrDataDir: Options.DataDir cannot be created or written.
	ErrDataDir = errors.New("data dir unusable")
	// ErrCRDPath: an Options.CRDDirectoryPaths entry does not exist or holds no CRD.
	ErrCRDPath = errors.New("unusable CRD path")
	// ErrUnknownComponent: the lab has no component of that name (in
	// Options.Components, or to stop or start). The same value as
	// control.ErrUnknownComponent, so that errors.Is works through the
	// control socket too.
	ErrUnknownComponent = control.ErrUnknownComponent
	// ErrUnknownNode: the lab has no simulated node of that name.
	ErrUnknownNode = control.ErrUnknownNode
	// ErrNodesNotReady: the simulated nodes were not all Ready within
	// Options.StartTimeout; the error says how many were and which not.
	ErrNodesNotReady = errors.New("simulated nodes not Ready in time")
	// ErrNodeCapacity: Options.NodeCapacity names a resource other than
	// cpu, memory and pods, or a value that is not positive.
	ErrNodeCapacity = errors.New("unusable node capacity")

	// ErrZones: Options.Zones is negative, above kubelet.MaxZones or above
	// the nodes.
	ErrZones = errors.New("unusable number of zones")
)

// Start boots etcd and kube-apiserver and returns once the apiserver serves
// requests and the default namespace exists, with the optional components
// started and the CRDs and objects installed (startSteps, in order). On
// error, or when ctx is done before the lab is ready, nothing it started is
// left running.
func Start(ctx context.Context, opts Options) (_ *Lab, retErr error) {
	opts.defaults()
	l := &Lab{opts: opts}
	defer func() {
		if retErr != nil {
			_ = l.Stop()
		}
	}()
	s := &starting{Lab: l}
	for _, step := range startSteps {
		if err := step(ctx, s); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// RESTConfig returns a configuration for the lab's admin user (group
// system:masters). The caller may modify the returned copy.
func (l *Lab) RESTConfig() *rest.Config { return rest.CopyConfig(l.admin.config) }

// Client returns a controller-runtime client acting as the admin user.
func (l *Lab) Client() client.Client { return l.admin.client }

// Kubeconfig returns a kubeconfig for the admin user.
func (l *Lab) Kubeconfig() []byte { return l.admin.kubeconfig }

// Endpoint returns the kube-apiserver's URL.
func (l *Lab) Endpoint() string { return l.admin.config.Host }

// Dir returns the lab's work dir: binary links, certificates, the
// components' logs (Dir().Log(name)) and the apiserver's audit log
// (Dir().AuditLog()).
func (l *Lab) Dir() control.Dir { return l.dir }

// Stop stops the simulated nodes, kube-controller-manager and
// kube-scheduler, then kube-apiserver, then etcd, and removes the temporary
// directories Start made. It is safe to call on a partly started lab and
// more than once.
func (l *Lab) Stop() error {
	var errs []error
	// Nothing a lab runs needs a graceful shutdown, so everything but etcd
	// stops at once. The aggregated API server drains its connections for
	// up to 100 ms: they end as soon as kube-apiserver, their only client,
	// is gone.
	var (
		wg, inProcess sync.WaitGroup
		mu            sync.Mutex
	)
	// The controller-manager and the scheduler are killed: their graceful
	// shutdown takes about a second and saves nothing a lab keeps. The
	// components in this process (the nodes, the aggregated API server)
	// stop meanwhile.
	for _, c := range l.components.list() {
		if sc, ok := c.(supervisedComponent); ok {
			if sc.child() == nil {
				continue
			}
			wg.Go(func() {
				if err := sc.child().Stop(0); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			})
		} else if cc, ok := c.(closer); ok {
			inProcess.Go(cc.close)
		}
	}
	l.webhooks.close()
	wg.Wait()
	if l.baseline != nil {
		l.baseline.close()
	}
	if l.cp != nil {
		errs = append(errs, l.cp.Stop(l.opts.StopTimeout)...)
	}
	if l.env != nil {
		// envtest started nothing: its Stop removes its webhook files.
		if err := l.env.Stop(); err != nil {
			errs = append(errs, fmt.Errorf("unable to clean up the environment: %w", err))
		}
		l.env = nil
	}
	inProcess.Wait()
	if l.made.etcdData != "" {
		if err := os.RemoveAll(l.made.etcdData); err != nil {
			errs = append(errs, fmt.Errorf("unable to remove etcd data %s: %w", l.made.etcdData, err))
		}
		l.made.etcdData = ""
	}
	if l.made.ownDir && l.dir != "" {
		if err := os.RemoveAll(string(l.dir)); err != nil {
			errs = append(errs, fmt.Errorf("unable to remove work dir %s: %w", l.dir, err))
		}
		l.dir = ""
	}
	return errors.Join(errs...)
}

// checkPortFree fails with ErrPortInUse when nothing can listen on port.
func checkPortFree(port int) error {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return lang.Errorf("%w: unable to listen on %s for kube-apiserver: %q", ErrPortInUse, addr, err.Error())
	}
	return ln.Close()
}

// WebhookInstallOptions returns Options.WebhookInstallOptions as the lab
// completed them: where to serve the webhooks (LocalServingHost,
// LocalServingPort) and the serving certificate's folder
// (LocalServingCertDir, tls.crt and tls.key).
func (l *Lab) WebhookInstallOptions() envtest.WebhookInstallOptions {
	return l.env.WebhookInstallOptions
}
