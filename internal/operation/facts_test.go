package operation

import "testing"

func TestParseFacts(t *testing.T) {
	out := "os=debian\nos_version=12\nos_name=Debian GNU/Linux 12 (bookworm)\nkernel=6.1.0-18-amd64\narch=x86_64\ncpus=2\nmemory_mb=24000\ndisk_total_gb=252\ndisk_free_gb=80\nhostname=worker-1\nnoise\n"
	f := parseFacts(out)
	want := Facts{Hostname: "worker-1", OS: "debian", OSVersion: "12", OSName: "Debian GNU/Linux 12 (bookworm)", Kernel: "6.1.0-18-amd64",
		Arch: "x86_64", CPUs: 2, MemoryMB: 24000, DiskTotalGB: 252, DiskFreeGB: 80}
	if f != want {
		t.Fatalf("got: %+v want: %+v", f, want)
	}
}
