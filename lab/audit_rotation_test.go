package lab_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crdlab/crdlab/lab"
	"github.com/crdlab/crdlab/lab/timeline"
)

var _ = Describe("the timeline across the audit log's rotation", func() {
	It("names who deleted what and dates each write after the apiserver rotated its audit log", func(ctx context.Context) {
		// A log rotated at 1 MB (50 in a lab): a few big ConfigMaps, whose
		// writes the log keeps with their responses, rotate it.
		l, err := lab.Start(ctx, lab.Options{Components: []string{}, APIServerFlags: map[string]string{"audit-log-maxsize": "1"}})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { Expect(l.Stop()).To(Succeed()) })

		recorded := recordTimeline(ctx, l)

		big := strings.Repeat("x", 200<<10)
		rotated := func() []string {
			old, _ := filepath.Glob(filepath.Join(filepath.Dir(l.Dir().AuditLog()), "audit-*.log"))
			return old
		}
		for i := 0; len(rotated()) == 0; i++ {
			Expect(i).To(BeNumerically("<", 100), "the audit log was not rotated")
			Expect(l.Client().Create(ctx, &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("big-%d", i), Namespace: "default"},
				Data:       map[string]string{"x": big},
			})).To(Succeed())
		}
		after := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "after-rotation", Namespace: "default"}}
		Expect(l.Client().Create(ctx, after)).To(Succeed())
		Expect(l.Client().Delete(ctx, after)).To(Succeed())

		// The deletion after the rotation names its deleter (a follower
		// that kept reading the renamed file shows "?"), and the writes
		// carry the apiserver's time, not when the watch delivered them.
		var ours []timeline.Event
		Eventually(func() []timeline.Event {
			var out []timeline.Event
			for _, e := range recorded() {
				if e.Name == after.Name {
					out = append(out, e)
				}
			}
			ours = out
			return out
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(ContainElements(
			And(HaveField("Verb", timeline.Create), HaveField("Revision", BeNumerically(">", 0))),
			And(HaveField("Verb", timeline.Delete), HaveField("Actor", Not(Equal("?"))), HaveField("Revision", BeNumerically(">", 0))),
		))
		data, err := os.ReadFile(l.Dir().AuditLog()) // the new log, after the rotation
		Expect(err).NotTo(HaveOccurred())
		answered := map[string]time.Time{} // by the revision its response carries
		var deleted []time.Time            // deletions of after-rotation, which answer a Status
		for _, line := range strings.Split(string(data), "\n") {
			var ev struct {
				Verb           string    `json:"verb"`
				StageTimestamp time.Time `json:"stageTimestamp"`
				ObjectRef      struct {
					Name string `json:"name"`
				} `json:"objectRef"`
				ResponseObject struct {
					Metadata struct {
						ResourceVersion string `json:"resourceVersion"`
					} `json:"metadata"`
				} `json:"responseObject"`
			}
			if json.Unmarshal([]byte(line), &ev) != nil {
				continue
			}
			if ev.Verb == "delete" && ev.ObjectRef.Name == after.Name {
				deleted = append(deleted, ev.StageTimestamp)
			}
			if ev.ResponseObject.Metadata.ResourceVersion != "" && ev.Verb != "deletecollection" { // a list at another write's revision
				if _, seen := answered[ev.ResponseObject.Metadata.ResourceVersion]; !seen {
					answered[ev.ResponseObject.Metadata.ResourceVersion] = ev.StageTimestamp
				}
			}
		}
		for _, e := range ours {
			at, ok := answered[fmt.Sprint(e.Revision)]
			if e.Verb == timeline.Delete {
				Expect(deleted).To(HaveLen(1), "the deletion of %s in the new audit log", after.Name)
				at, ok = deleted[0], true
			}
			Expect(ok).To(BeTrue(), "no response in the new audit log carries revision %d (%s)", e.Revision, e.Verb)
			Expect(e.Time).To(BeTemporally("==", at), "the time of %s %s", e.Verb, e.Name)
		}
	}, NodeTimeout(5*time.Minute))
})

// recordTimeline records l's timeline (WatchWith, with its audit log and
// revisions) until the spec ends, once it is synced; recorded returns the
// lines so far.
func recordTimeline(ctx context.Context, l *lab.Lab) (recorded func() []timeline.Event) {
	GinkgoHelper()
	var mu sync.Mutex
	var lines []timeline.Event
	wctx, stop := context.WithCancel(ctx)
	DeferCleanup(stop)
	synced := make(chan struct{})
	go func() {
		defer GinkgoRecover()
		Expect(timeline.WatchWith(wctx, l.RESTConfig(), timeline.SinkFunc(func(e timeline.Event) {
			mu.Lock()
			defer mu.Unlock()
			lines = append(lines, e)
		}), timeline.Options{AuditLog: l.Dir().AuditLog(), Revisions: true, Synced: func() { close(synced) }})).To(Succeed())
	}()
	Eventually(synced).WithContext(ctx).WithTimeout(30 * time.Second).Should(BeClosed())
	return func() []timeline.Event {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(lines)
	}
}
