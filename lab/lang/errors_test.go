package lang

import (
	"errors"
	"fmt"
	"testing"
)

func TestErrorIn(t *testing.T) {
	sentinel := errors.New("a lab is already running")
	inner := Errorf("%w on state dir %s (pid %d, %s); stop it with 'crdlab down'", sentinel, "/tmp/s", 42, "https://127.0.0.1:1")
	outer := Errorf("--state-dir: %w", inner)
	if !errors.Is(outer, sentinel) {
		t.Fatal("errors.Is does not see the sentinel through Errorf")
	}
	const en = "--state-dir: a lab is already running on state dir /tmp/s (pid 42, https://127.0.0.1:1); stop it with 'crdlab down'"
	if got := outer.Error(); got != en {
		t.Errorf("Error() = %q, want %q", got, en)
	}
	if got := ErrorIn(EN, outer); got != en {
		t.Errorf("ErrorIn(EN) = %q, want %q", got, en)
	}
	const zhWant = "--state-dir：状态目录 /tmp/s 上已经有一个实验环境在运行（pid 42，https://127.0.0.1:1）；用 'crdlab down' 停止它"
	if got := ErrorIn(ZH, outer); got != zhWant {
		t.Errorf("ErrorIn(ZH) = %q, want %q", got, zhWant)
	}
	if bare := Bare(ErrorIn(Pseudo, outer)); len(bare) > 0 {
		t.Errorf("ErrorIn(Pseudo): bare English %q in %q", bare, ErrorIn(Pseudo, outer))
	}
	// Another program's words, wrapped by fmt.Errorf, stay as they are.
	other := fmt.Errorf("dial unix /x: %w", errors.New("connection refused"))
	if got := ErrorIn(ZH, other); got != other.Error() {
		t.Errorf("ErrorIn(ZH) of another program's error = %q", got)
	}
}
