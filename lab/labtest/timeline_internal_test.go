package labtest

import "testing"

// TimelineSince keeps the lines of the writes after the mark's revision
// (a line of an earlier write can be written after the mark: the lab holds
// lines for the ones before them) and the lines of no write, without the
// revisions the log ends them with.
func TestSinceRevision(t *testing.T) {
	log := "  +1.000s  deployment           CREATE  replicaset/web-1  #100\n" +
		"  +1.100s  webapp-operator      RECONCILE  webapp/shop\n" +
		"  +1.200s  replicaset           CREATE  pod/web-1-a  #102\n"
	want := "  +1.100s  webapp-operator      RECONCILE  webapp/shop\n" +
		"  +1.200s  replicaset           CREATE  pod/web-1-a\n"
	if got := since(log, 101); got != want {
		t.Errorf("since revision 101:\n%s\nwant:\n%s", got, want)
	}
	if got := since(log, 0); got != "  +1.000s  deployment           CREATE  replicaset/web-1\n"+want {
		t.Errorf("since the start:\n%s", got)
	}
}
