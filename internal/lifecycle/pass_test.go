package lifecycle

import (
	"context"
	"testing"
)

func TestPassMemo(t *testing.T) {
	if Memo(context.Background()) != nil {
		t.Fatal("a memo outside a pass")
	}
	var none *PassMemo // outside a pass every call is a no-op
	none.Set("k", 1)
	none.Clear()
	if _, ok := none.Get("k"); ok {
		t.Fatal("nil memo remembered")
	}

	ctx := WithPass(context.Background())
	m := Memo(ctx)
	m.Set("node:a", 1)
	if v, ok := m.Get("node:a"); !ok || v != 1 {
		t.Fatalf("Get = %v, %v", v, ok)
	}
	m.Clear()
	if _, ok := m.Get("node:a"); ok {
		t.Fatal("Clear kept a value")
	}
	if Memo(WithPass(ctx)) == m {
		t.Fatal("a new pass shares the old memo")
	}
}

// memoProv records the memo each Register call sees.
type memoProv struct {
	*fakeProv
	memos []*PassMemo
}

func (p *memoProv) Register(ctx context.Context, h *Host, creds, restart bool) (Result, string, error) {
	p.memos = append(p.memos, Memo(ctx))
	return p.fakeProv.Register(ctx, h, creds, restart)
}

// Every pass starts with an empty memo: nothing read in one pass is
// trusted in the next.
func TestStepGivesEachPassAFreshMemo(t *testing.T) {
	e := newEnv()
	prov := &memoProv{fakeProv: e.prov}
	e.m.Prov = prov
	h := newHost(StateAvailable)
	e.m.Step(context.Background(), h)
	e.m.Step(context.Background(), h)
	if len(prov.memos) != 2 || prov.memos[0] == nil || prov.memos[0] == prov.memos[1] {
		t.Fatalf("memos seen over two passes: %v (want two distinct ones)", prov.memos)
	}
}
