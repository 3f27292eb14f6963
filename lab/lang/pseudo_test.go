package lang

import (
	"fmt"
	"slices"
	"testing"
)

// Pseudo marks a catalogued message between its format verbs, and leaves
// any other bare.
func TestPseudo(t *testing.T) {
	for _, tc := range []struct{ msg, want string }{
		{"lab ready in %.1fs\n", "⟦lab ready in⟧ %.1f⟦s⟧\n"},
		{"  problem:    %s\n", "  ⟦problem:⟧    %s\n"},
		{"    %-24s %s, restarts %d", "    %-24s %s⟦, restarts⟧ %d"},
		{"stopped", "⟦stopped⟧"},
		{"not in the catalog: %s", "not in the catalog: %s"},
	} {
		if got := Pseudo.Msg(tc.msg); got != tc.want {
			t.Errorf("Pseudo.Msg(%q) = %q, want %q", tc.msg, got, tc.want)
		}
	}
	if got := Pseudo.Msgf("scaled %s to %d", "deployment/web", 3); got != "⟦scaled⟧ deployment/web ⟦to⟧ 3" {
		t.Errorf("Msgf: %q", got)
	}
	if got := Mark("100%% of %[2]s"); got != "⟦100%% of⟧ %[2]s" {
		t.Errorf("Mark: %q", got)
	}
	for _, s := range []string{"xx", "XX"} {
		if l, err := Parse(s); err != nil || l != Pseudo {
			t.Errorf("Parse(%q) = %s, %v", s, l, err)
		}
	}
	if l := FromLocale(func(k string) string { return map[string]string{"LC_ALL": "xx"}[k] }); l != Pseudo {
		t.Errorf("LC_ALL=xx: %s", l)
	}
}

// Bare finds 3 English words in a row outside the markers, and nothing in
// names, kinds, flags, paths, quotes and commands.
func TestBare(t *testing.T) {
	for _, tc := range []struct {
		out  string
		want []string
	}{
		{"⟦lab ready in⟧ 1.2s", nil},
		{"deletion requested (graceful)", []string{"deletion requested graceful"}},
		{"  +0.012s  kubelet  UPDATE  pod/web-1  woken by kubelet; in 24ms", []string{"woken by kubelet in"}},
		{"Running, Ready", nil},
		{"⟦名称⟧ ReplicaSet web-7d4 spec.replicas --state-dir /tmp/x https://127.0.0.1:1/ui", nil},
		{"⟦运行⟧ 'crdlab up -d' or `kubectl get pods -A` \"some quoted words\"", nil},
		{"  crdlab scenario run NAME|FILE... [flags]", nil},
		{"⟦外面 ⟦里面⟧ still marked⟧ and these three", []string{"and these three"}},
		{"the lab's state dir", []string{"the lab's state dir"}},
		// A table's header in capitals: crdlab's own is marked; kubectl's,
		// after its command line, is kubectl's words.
		{"NAME       KUBELET\nlab-node-1 ⟦running⟧", []string{"NAME KUBELET"}},
		{"NAME\tTASKS DONE\tTITLE", []string{"NAME TASKS DONE TITLE"}},
		{"⟦NAME⟧   KUBELET", []string{"KUBELET"}},
		{"⟦NAME   STATE⟧\nwebapp-operator   ⟦running⟧", nil},
		{"⟦a multi-line\nmessage⟧   KUBELET   STATE", []string{"KUBELET STATE"}},
		{"crdlab kubectl get nodes\nNAME         STATUS   ROLES    AGE   VERSION\nlab-node-1   Ready    <none>   5m    v1.37.2", nil},
		{"$ crdlab --state-dir /tmp/x kubectl get all\nNAME    READY\n\nNAME   AGE\n⟦done⟧\nNAME   STATE", []string{"NAME STATE"}},
		{"crdlab node list\nNAME   KUBELET", []string{"NAME KUBELET"}},
		{"⟦kubectl get groups prints⟧ NAME ⟦and⟧ AGE", nil},
		{"  PASS   delete-pod", nil},
		// A value, as YAML writes one on a line, is not a sentence.
		{"metadata.ownerReferences：⟦期望⟧ {- controller: true,   kind: User,   name: alice}", nil},
		{"{a value} and these three", []string{"and these three"}},
		// An object's YAML, indented, is data; a sentence is not YAML.
		{"⟦实际：⟧\n  data:\n    groups: developers, reviewers, admins\n  - name: some user name", nil},
		{"Note: this is not translated", []string{"Note this is not translated"}},
	} {
		if got := Bare(tc.out); !slices.Equal(got, tc.want) {
			t.Errorf("Bare(%q) = %q, want %q", tc.out, got, tc.want)
		}
	}
}

func ExampleMark() {
	fmt.Println(Mark("  %s stopped (pid %d)\n"))
	// Output:   %s ⟦stopped (pid⟧ %d⟦)⟧
}
