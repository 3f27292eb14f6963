// Package reset brings a lab's etcd back to a baseline: it deletes every
// key created since the baseline and puts back every key deleted since,
// in a few transactions, while the apiserver keeps running.
//
// Why not restore a snapshot: etcd's revision would go backwards, and the
// apiserver's watch cache, every informer and every client that holds a
// resourceVersion would have to be restarted or relisted (kwokctl snapshot
// restore stops the components for that reason). Why not delete through
// the API: a namespace deletion waits for the namespace controller to
// empty it and objects with finalizers wait for their controllers, seconds
// at best and forever when a controller is gone. Deleting keys is a change
// forward in etcd's history, so the apiserver's watch of etcd turns each
// into a DELETED event that the watch cache, the controllers and the
// user's informers all see, as if the object had been deleted.
package reset

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// maxOps is how many operations go in one transaction; etcd refuses more
// than --max-txn-ops (128 by default).
const maxOps = 100

// Baseline is the content of etcd under a prefix at one revision.
type Baseline struct {
	prefix   string
	revision int64
	values   map[string][]byte
}

// Take records the keys and values under prefix as they are now.
func Take(ctx context.Context, cli *clientv3.Client, prefix string) (*Baseline, error) {
	resp, err := cli.Get(ctx, prefix, clientv3.WithPrefix())
	if err != nil {
		return nil, fmt.Errorf("unable to read etcd for a baseline: %w", err)
	}
	b := &Baseline{prefix: prefix, revision: resp.Header.Revision, values: make(map[string][]byte, len(resp.Kvs))}
	for _, kv := range resp.Kvs {
		b.values[string(kv.Key)] = kv.Value
	}
	return b, nil
}

// Revision is etcd's revision when the baseline was taken.
func (b *Baseline) Revision() int64 { return b.revision }

// Has reports whether the baseline holds key.
func (b *Baseline) Has(key string) bool {
	_, ok := b.values[key]
	return ok
}

// Policy says which keys Restore leaves alone, and in what order it
// deletes the others.
type Policy struct {
	// Keep reports whether a key created since the baseline stays.
	Keep func(key string) bool
	// NoRestore reports whether a key deleted since the baseline stays
	// deleted.
	NoRestore func(key string) bool
	// Phase orders the deletions: keys of phase 0 first, then 1, and so
	// on. Nil: one phase.
	Phase func(key string, value []byte) int
	// Settle, if not nil, is called after each phase but the last with the
	// keys it deleted, to wait until the apiserver has seen them go (so
	// that no controller writes into what the next phase deletes).
	Settle func(ctx context.Context, deleted []string) error
}

// Result counts what Restore changed.
type Result struct {
	Deleted  int // keys created since the baseline, deleted
	Restored int // keys deleted (or deleted and created again) since, put back
}

// Restore deletes the keys created since the baseline and puts back the
// keys deleted since, as the policy allows. Keys that existed at the
// baseline and still exist keep their current value.
func (b *Baseline) Restore(ctx context.Context, cli *clientv3.Client, p Policy) (Result, error) {
	resp, err := cli.Get(ctx, b.prefix, clientv3.WithPrefix())
	if err != nil {
		return Result{}, fmt.Errorf("unable to list etcd: %w", err)
	}
	var res Result
	var puts []clientv3.Op
	deletes := map[int][]string{}
	seen := make(map[string]bool, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		key := string(kv.Key)
		old, inBaseline := b.values[key]
		switch {
		case inBaseline && kv.CreateRevision <= b.revision:
			seen[key] = true // there since the baseline
		case inBaseline:
			// Deleted and created again: the baseline's object comes back.
			seen[key] = true
			if p.NoRestore == nil || !p.NoRestore(key) {
				puts = append(puts, clientv3.OpPut(key, string(old)))
				res.Restored++
			}
		case p.Keep == nil || !p.Keep(key):
			phase := 0
			if p.Phase != nil {
				phase = p.Phase(key, kv.Value)
			}
			deletes[phase] = append(deletes[phase], key)
			res.Deleted++
		}
	}
	for key, old := range b.values {
		if seen[key] || (p.NoRestore != nil && p.NoRestore(key)) {
			continue
		}
		puts = append(puts, clientv3.OpPut(key, string(old)))
		res.Restored++
	}
	phases := slices.Sorted(maps.Keys(deletes))
	for i, phase := range phases {
		ops := make([]clientv3.Op, 0, len(deletes[phase]))
		for _, key := range deletes[phase] {
			ops = append(ops, clientv3.OpDelete(key))
		}
		if err := commit(ctx, cli, ops); err != nil {
			return res, err
		}
		if p.Settle != nil && i < len(phases)-1 {
			if err := p.Settle(ctx, deletes[phase]); err != nil {
				return res, err
			}
		}
	}
	return res, commit(ctx, cli, puts)
}

// commit applies ops in transactions of at most maxOps.
func commit(ctx context.Context, cli *clientv3.Client, ops []clientv3.Op) error {
	for len(ops) > 0 {
		n := min(len(ops), maxOps)
		if _, err := cli.Txn(ctx).Then(ops[:n]...).Commit(); err != nil {
			return fmt.Errorf("unable to reset etcd: %w", err)
		}
		ops = ops[n:]
	}
	return nil
}

// HasPrefix reports whether key starts with one of prefixes.
func HasPrefix(key string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}
