package ssh

import (
	"bytes"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/transport"
)

func TestCaptureKeepsHeadAndTail(t *testing.T) {
	c := newCapture(10, nil, nil)
	for _, s := range []string{"0123", "4567", "89ab", "cdefghij"} {
		c.Write([]byte(s))
	}
	got, trunc := c.result(nil)
	if !trunc {
		t.Fatal("want truncated")
	}
	want := "01234\n[... 10 bytes truncated ...]\nfghij"
	if string(got) != want {
		t.Fatalf("got: %q want: %q", got, want)
	}
}

func TestCaptureUnderLimitIsWhole(t *testing.T) {
	c := newCapture(10, nil, nil)
	c.Write([]byte("01234"))
	c.Write([]byte("56789"))
	got, trunc := c.result(nil)
	if trunc || string(got) != "0123456789" {
		t.Fatalf("got: %q %v want: whole, not truncated", got, trunc)
	}
}

func TestStreamRedactsSecretsSplitAcrossWrites(t *testing.T) {
	var r transport.Redactor
	r.Add("topsecret-value")
	var out bytes.Buffer
	c := newCapture(1<<20, &r, &out)
	for _, s := range []string{"a top", "secret-va", "lue here\nnext topsecret-", "value\ntail"} {
		c.Write([]byte(s))
	}
	got, _ := c.result(&r)
	for name, s := range map[string]string{"captured": string(got), "streamed": out.String()} {
		if strings.Contains(s, "topsecret") || strings.Count(s, transport.Mask) != 2 {
			t.Errorf("%s: got: %q want: two masks and no secret", name, s)
		}
	}
	if !strings.HasSuffix(out.String(), "tail") {
		t.Errorf("streamed: got: %q want: the unterminated last line flushed", out.String())
	}
}
