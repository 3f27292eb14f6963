package etcd

import (
	"os"
	"strings"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

// Election defaults crdlab's etcd runs with unless told otherwise: a
// heartbeat every 10 ms, an election after 100 ms without one.
const (
	HeartbeatInterval = "10"
	ElectionTimeout   = "100"
)

// Main runs etcd with args (args[0] the program's name), with crdlab's
// election defaults added by Args. It returns only if etcd does not exit
// the process itself.
func Main(args []string) {
	etcdmain.Main(Args(args, os.LookupEnv))
}

// Args returns args with --heartbeat-interval and --election-timeout set to
// crdlab's defaults, unless args or the environment (ETCD_HEARTBEAT_INTERVAL,
// ETCD_ELECTION_TIMEOUT, read through lookupEnv) set either one, or args
// run one of etcd's sub-commands (gateway, grpc-proxy) rather than a member.
func Args(args []string, lookupEnv func(string) (string, bool)) []string {
	if len(args) > 1 && !strings.HasPrefix(args[1], "-") {
		return args // a sub-command: no member to elect
	}
	for _, name := range []string{"heartbeat-interval", "election-timeout"} {
		if _, ok := lookupEnv("ETCD_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))); ok {
			return args
		}
		for _, arg := range args[min(1, len(args)):] {
			flag := strings.TrimLeft(arg, "-")
			if arg != flag && (flag == name || strings.HasPrefix(flag, name+"=")) {
				return args
			}
		}
	}
	out := make([]string, 0, len(args)+2)
	out = append(out, args...)
	if len(out) == 0 {
		out = append(out, "etcd")
	}
	return append(out, "--heartbeat-interval="+HeartbeatInterval, "--election-timeout="+ElectionTimeout)
}
