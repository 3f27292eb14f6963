package main

import (
	"bytes"
	"testing"

	"github.com/crdlab/crdlab/lab/lang"
	"github.com/crdlab/crdlab/lab/server"
)

// The processes' memory as 'crdlab status' prints it, with PSS (Linux) and
// without (macOS, where the kernel has no such figure and the lines must not
// claim "pss 0").
func TestStatusPrintsPSSOnlyWhereReported(t *testing.T) {
	const mib = 1 << 20
	cases := []struct {
		name string
		tree []server.Process
		want string
	}{{
		name: "linux",
		tree: []server.Process{
			{PID: 10, Name: "crdlab", RSS: 120 * mib, PeakRSS: 130 * mib, PSS: 80 * mib},
			{PID: 11, Name: "etcd", RSS: 60 * mib, PeakRSS: 70 * mib, PSS: 30 * mib},
		},
		want: `  processes:
    crdlab                   pid 10      rss  120 MiB  pss   80 MiB  (peak rss 130 MiB)
    etcd                     pid 11      rss   60 MiB  pss   30 MiB  (peak rss 70 MiB)
    total                                rss  180 MiB  pss  110 MiB  (pss counts shared pages once)
`,
	}, {
		name: "darwin",
		tree: []server.Process{
			{PID: 10, Name: "crdlab", RSS: 120 * mib},
			{PID: 11, Name: "etcd", RSS: 60 * mib},
		},
		want: `  processes:
    crdlab                   pid 10      rss  120 MiB
    etcd                     pid 11      rss   60 MiB
    total                                rss  180 MiB  (shared pages counted in each process)
`,
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			printProcesses(&out, c.tree, lang.EN)
			if out.String() != c.want {
				t.Errorf("printed\n%s\nwant\n%s", out.String(), c.want)
			}
		})
	}
}
