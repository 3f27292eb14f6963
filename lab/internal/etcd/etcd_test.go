package etcd_test

import (
	"slices"
	"testing"

	"github.com/crdlab/crdlab/lab/internal/etcd"
)

func TestArgs(t *testing.T) {
	tuned := []string{"--heartbeat-interval=" + etcd.HeartbeatInterval, "--election-timeout=" + etcd.ElectionTimeout}
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want []string
	}{
		{"envtest's flags", []string{"etcd", "--data-dir=/d", "--unsafe-no-fsync=true"}, nil,
			append([]string{"etcd", "--data-dir=/d", "--unsafe-no-fsync=true"}, tuned...)},
		{"no flags", []string{"etcd"}, nil, append([]string{"etcd"}, tuned...)},
		{"heartbeat given", []string{"etcd", "--heartbeat-interval=50"}, nil, []string{"etcd", "--heartbeat-interval=50"}},
		{"election timeout given as two words", []string{"etcd", "-election-timeout", "500"}, nil, []string{"etcd", "-election-timeout", "500"}},
		{"in the environment", []string{"etcd"}, map[string]string{"ETCD_ELECTION_TIMEOUT": "500"}, []string{"etcd"}},
		{"a sub-command", []string{"etcd", "gateway", "start"}, nil, []string{"etcd", "gateway", "start"}},
		{"a flag that only starts alike", []string{"etcd", "--election-timeout-x=1"}, nil,
			append([]string{"etcd", "--election-timeout-x=1"}, tuned...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := etcd.Args(tc.args, func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok })
			if !slices.Equal(got, tc.want) {
				t.Errorf("Args(%q, %v) = %q, want %q", tc.args, tc.env, got, tc.want)
			}
		})
	}
}
