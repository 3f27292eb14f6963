package kubeminor

import (
	"context"
	"fmt"
)

// Kubernetes is the Kubernetes a lab serves, resolved once by Resolve and
// passed down (lab.Options.Kubernetes), so that nothing below chooses it
// or runs its components executable again.
type Kubernetes struct {
	Minor   string // "1.36"
	Version string // the release served, "v1.36.5": what its components executable says
	// Components is the minor's components executable; nil for BuiltIn.
	Components *Components
	// Chosen says the minor was asked for (by --kubernetes or Env), not
	// taken by default.
	Chosen bool
}

// Resolve chooses the minor of version as a user gives it (source names
// where it came from in errors: "--kubernetes", an option's name) or, when
// version is empty, of $CRDLAB_KUBERNETES_VERSION, else BuiltIn; and finds
// and checks its components executable where w says.
func Resolve(ctx context.Context, source, version string, w Where) (Kubernetes, error) {
	var k Kubernetes
	var err error
	if k.Minor, source, err = choose(w.Lang, source, version); err != nil {
		return Kubernetes{}, err
	}
	k.Chosen = source != ""
	k.Version = Patch(k.Minor)
	if k.Minor == BuiltIn {
		return k, nil
	}
	if k.Components, err = Find(ctx, k.Minor, w); err != nil {
		return Kubernetes{}, fmt.Errorf("%s %s: %w", source, k.Minor, err)
	}
	k.Version = k.Components.Versions.Kubernetes
	return k, nil
}
