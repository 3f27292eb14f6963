package control_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/crdlab/crdlab/lab/labtest/control"
)

// A state dir's files, where 'crdlab up' writes them and other processes
// find them.
func ExampleDir() {
	d := control.Dir("/home/me/.crdlab")
	fmt.Println(d.Kubeconfig())
	fmt.Println(d.StatusFile())
	fmt.Println(d.TimelineLog())
	fmt.Println(d.Log("kube-apiserver"))
	fmt.Println(d.ControlSocket())
	// Output:
	// /home/me/.crdlab/kubeconfig
	// /home/me/.crdlab/lab.json
	// /home/me/.crdlab/logs/timeline.log
	// /home/me/.crdlab/logs/kube-apiserver.log
	// /home/me/.crdlab/control.sock
}

// Stop a simulated node of the lab 'crdlab up -d' runs, as 'crdlab node
// stop' does.
func ExampleDial() {
	c, err := control.Dial(control.Dir(os.ExpandEnv("$HOME/.crdlab")))
	if errors.Is(err, control.ErrNotRunning) {
		fmt.Println("start one with 'crdlab up -d'")
		return
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	err = c.StopNode(context.Background(), "lab-node-2")
	if errors.Is(err, control.ErrUnknownNode) {
		fmt.Println("no such node:", err)
	}
}
