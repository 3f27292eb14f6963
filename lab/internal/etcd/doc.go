// Package etcd runs etcd's own main (go.etcd.io/etcd/server/v3/etcdmain)
// as crdlab's etcd component: the same flags, help and behaviour, with one
// change of default. A single member's first election waits for a random
// number of heartbeats, up to a whole election timeout: with etcd's
// defaults (100 ms heartbeats, 1 s election timeout) a fresh member
// becomes leader, and ready, 0.1 to 1 s after it starts, which envtest
// waits for. Unless the command line or the environment sets either
// value, crdlab's etcd runs with 10 ms heartbeats and a 100 ms election
// timeout, as the lab's own etcd always did, and is ready within 10 to
// 100 ms.
//
// The etcd of crdlab and of 'crdlab envtest's folder (of every Kubernetes
// minor) runs it.
package etcd
