package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"strconv"
	"syscall"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

// run executes the command line args and returns the exit code.
func run(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cmd, g := newRoot()
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(ctx)
	var code exitCode
	switch {
	case err == nil:
		return 0
	case errors.As(err, &code):
		return int(code)
	default:
		printError(cmd, g, err)
		return 1
	}
}

// exitCode is an error that carries only an exit status: the command already
// said what it had to.
type exitCode int

func (c exitCode) Error() string { return "exit status " + strconv.Itoa(int(c)) }
