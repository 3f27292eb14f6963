package format

import (
	"strings"
	"testing"
)

func TestWrap(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		width      int
		want       []string
	}{
		{"English", "one two three\nfour five", 9, []string{"one two", "three", "four five"}},
		{"paragraphs and lists", "a b\n\n- item\n  $ cmd\nc", 10, []string{"a b", "", "- item", "  $ cmd", "c"}},
		// Chinese lines join without a space and fold between
		// characters, two columns each; a comma never begins a line.
		{"Chinese", "控制器比较期望\n状态与当前状态，并补上差距", 12, []string{"控制器比较期", "望状态与当前", "状态，并补上", "差距"}},
		{"mixed", "删掉一个 Pod，\nReplicaSet 控制器\n又创建一个", 16, []string{"删掉一个 Pod，", "ReplicaSet 控制", "器又创建一个"}},
		// A line break between a Chinese character and a Kubernetes word
		// is a space, as the writer puts one inside a line.
		{"break beside a word", "就像一次 kubectl delete\n那样，其中一个\nPod", 42, []string{"就像一次 kubectl delete 那样，其中一个 Pod"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Wrap(tc.text, tc.width)
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
			for _, line := range got {
				if c := Columns(line); c > tc.width && !closing([]rune(line)[len([]rune(line))-1]) {
					t.Errorf("%q is %d columns, more than %d", line, c, tc.width)
				}
			}
		})
	}
}
