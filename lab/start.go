package lab

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"golang.org/x/sync/errgroup"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdlab/crdlab/lab/internal/proc"
	"github.com/crdlab/crdlab/lab/multicall"
)

// startSteps are what Start does, in order; the first that fails ends the
// start, and Start stops what the steps before it started. (kind's
// pkg/cluster/internal/create is the model: a bring-up as a list of
// actions.)
var startSteps = []func(context.Context, *starting) error{
	checkOptions,
	layOutDirs,
	prepareWebhooks,
	registerComponents,
	prepareControlPlane,
	provisionAdmin,
	superviseControlPlane,
	startControlPlane,
	startComponentsAndInstall,
	takeTheBaseline,
	recordDataDir,
}

// starting is a lab being started: what Start's steps share.
type starting struct {
	*Lab
	scheme *runtime.Scheme                             // of the lab's client
	crds   []*apiextensionsv1.CustomResourceDefinition // for envtest to install
}

// checkOptions checks the options that need nothing started, and chooses
// the Kubernetes the lab serves.
func checkOptions(ctx context.Context, s *starting) error {
	if err := validComponents(s.opts.Components); err != nil {
		return err
	}
	var err error
	if s.kube, err = chooseKubernetes(ctx, s.opts); err != nil {
		return err
	}
	return nil
}

// layOutDirs makes the work dir and the data dir (checking that a data dir
// is the Kubernetes' own), with the links to the components, and checks
// that Options.Port is free.
func layOutDirs(_ context.Context, s *starting) error {
	if err := prepareDirs(s.Lab); err != nil {
		return err
	}
	if s.opts.DataDir != "" {
		if err := checkDataDir(s.opts.DataDir, labVersions(s.kube)); err != nil {
			return err
		}
	}
	if s.opts.Port != 0 {
		return checkPortFree(s.opts.Port)
	}
	return nil
}

// prepareWebhooks reads the CRDs and the user's webhooks, and starts the
// front that the user's webhooks are called through.
func prepareWebhooks(_ context.Context, s *starting) error {
	s.scheme = s.opts.Scheme
	if s.scheme == nil {
		s.scheme = defaultScheme()
	}
	var err error
	s.crds, err = s.webhooks.prepare(s.Lab, s.scheme)
	return err
}

// registerComponents registers the optional components the options ask
// for (builtins), not started.
func registerComponents(_ context.Context, s *starting) error {
	for _, b := range builtins {
		if s.opts.runs(b.name) {
			s.components.add(b.new(s.Lab))
		}
	}
	return nil
}

// prepareControlPlane makes etcd and kube-apiserver, configured for the
// options and the components (newControlPlane).
func prepareControlPlane(ctx context.Context, s *starting) error {
	var err error
	s.cp, err = newControlPlane(ctx, s.Lab)
	return err
}

// provisionAdmin provisions the admin user envtest provisions, with the
// same client limits, and makes its client and kubeconfig and envtest's
// environment, before the processes start: a restart's readiness check
// (superviseControlPlane) uses the client.
func provisionAdmin(_ context.Context, s *starting) error {
	cfg, err := s.cp.APIServer.AddUser("admin", []string{"system:masters"}, &rest.Config{QPS: 1000, Burst: 2000})
	if err != nil {
		return err
	}
	s.admin.config = cfg
	if s.admin.client, err = client.New(cfg, client.Options{Scheme: s.scheme}); err != nil {
		return fmt.Errorf("unable to create a client for %s: %w", cfg.Host, err)
	}
	if s.admin.kubeconfig, err = kubeconfigFor(cfg); err != nil {
		return err
	}
	s.env = newInstaller(s.crds, cfg, s.opts)
	return nil
}

// superviseControlPlane has the lab supervise etcd and kube-apiserver
// (configureChild); a restarted etcd counts as up only once the apiserver
// reads from it again (its client reconnects with a back-off of its own,
// about a second).
func superviseControlPlane(_ context.Context, s *starting) error {
	for _, c := range s.cp.Processes() {
		s.configureChild(c)
	}
	s.cp.Etcd.Process().Ready = etcdReady(s.cp.APIServer.Process(), s.admin.client)
	return nil
}

// startControlPlane starts etcd and kube-apiserver and returns once the
// apiserver is ready, or explains why it is not with the processes' own
// errors.
func startControlPlane(ctx context.Context, s *starting) error {
	s.opts.Progress(Progress{Phase: PhaseControlPlaneStarting})
	if err := s.cp.Start(ctx, s.opts.StartTimeout); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if se := (*proc.StartError)(nil); s.opts.DataDir != "" && errors.As(err, &se) && se.Name == multicall.Etcd {
			return explainDataDirError(err, s.opts.DataDir, s.dir)
		}
		return explainStartError(err, s.dir)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.opts.Progress(Progress{Phase: PhaseAPIServerReady, Endpoint: s.admin.config.Host})
	return nil
}

// startComponentsAndInstall starts the optional components and, in
// parallel, installs what goes into the apiserver (CRDs, webhook
// configurations, Objects, then Options.Alongside): neither waits for the
// other.
func startComponentsAndInstall(ctx context.Context, s *starting) error {
	install := func(ctx context.Context) error {
		if _, err := s.env.Start(); err != nil { // installs only: see newInstaller
			return explainStartError(err, s.dir)
		}
		if err := s.webhooks.install(ctx, s.Lab); err != nil {
			return err
		}
		for _, obj := range s.opts.Objects {
			if err := s.admin.client.Patch(ctx, obj, client.Apply, client.FieldOwner("crdlab"), client.ForceOwnership); err != nil {
				return fmt.Errorf("unable to apply %s %s: %w", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName(), err)
			}
		}
		if s.opts.Alongside != nil {
			ops, err := s.opts.Alongside(ctx, s.Lab)
			if err != nil {
				return err
			}
			s.components.add(operatorsOf(ops)...)
		}
		return nil
	}
	var run []builtin
	for _, b := range builtins {
		if s.opts.runs(b.name) {
			run = append(run, b)
		}
	}
	registered := s.components.list() // the builtins, before install adds the operators
	if slices.ContainsFunc(run, func(b builtin) bool { return b.servingCert }) {
		if err := s.components.makeServingCert(s.dir); err != nil {
			return err
		}
	}
	said := map[Phase]bool{}
	say := func(p Phase) {
		if p != "" && !said[p] {
			said[p] = true
			s.opts.Progress(Progress{Phase: p})
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	for i, b := range run {
		c := registered[i]
		say(b.starting)
		g.Go(func() error {
			if err := c.Start(gctx); err != nil {
				return err
			}
			if b.ready != nil {
				s.opts.Progress(b.ready(s.Lab))
			}
			return nil
		})
	}
	g.Go(func() error { return install(gctx) })
	if err := g.Wait(); err != nil {
		return err
	}
	for _, b := range run {
		say(b.started)
	}
	return ctx.Err()
}

// takeTheBaseline records etcd's content, what Reset returns to.
func takeTheBaseline(ctx context.Context, s *starting) error {
	var err error
	s.baseline, err = takeBaseline(ctx, s.cp.Etcd.URL(), s.opts.StartTimeout)
	return err
}

// recordDataDir writes, in a data dir, which versions wrote it
// (dataDirMeta), once the lab is ready on it.
func recordDataDir(_ context.Context, s *starting) error {
	return writeDataDirMeta(s.opts.DataDir, labVersions(s.kube))
}

// defaultScheme returns client-go's scheme plus apiextensions.k8s.io/v1, the
// scheme of the lab's client when Options.Scheme is nil.
func defaultScheme() *runtime.Scheme {
	sch := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(sch)
	_ = apiextensionsv1.AddToScheme(sch)
	return sch
}
