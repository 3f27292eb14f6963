package labtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
)

// ErrScenarioFailed: an expectation of the scenario failed.
var ErrScenarioFailed = errors.New("scenario failed")

// RunScenario runs a scenario file (docs/scenario-format.md in crdlab's
// repository) or a built-in scenario's name against the environment's
// cluster with the runner 'crdlab scenario run' uses, writing its
// narration, steps and timeline to out. It returns ErrScenarioFailed when
// an expectation fails.
func (e *Environment) RunScenario(ctx context.Context, scenario string, out io.Writer) error {
	bin, err := e.binary(ctx)
	if err != nil {
		return err
	}
	args := []string{"scenario", "run", scenario}
	switch {
	case e.stateDir != "":
		args = append(args, "--state-dir", e.stateDir)
	case e.existing && e.kubeconfig != "":
		args = append(args, "--kubeconfig", e.kubeconfig)
	default:
		return fmt.Errorf("%w: RunScenario needs a started lab", ErrNotRunning)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = out, out
	err = cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 {
		return fmt.Errorf("%w: %s", ErrScenarioFailed, scenario)
	}
	if err != nil {
		return fmt.Errorf("scenario %s: %w", scenario, err)
	}
	return nil
}
