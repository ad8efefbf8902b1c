package testhosts

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The harness's S3 server answers a request signed with its identity's
// keys, refuses one signed with a wrong secret key or an unknown access
// key, serves a bucket created through the API, and is gone (port closed,
// directory removed) after Stop.
func TestS3Server(t *testing.T) {
	s := RequireS3(t, S3Options{AccessKey: "CPHARNESS0001", SecretKey: "harness-secret-0123456789",
		More: []S3Keys{{"CPHARNESS0002", "harness-secret-second-0123"}}})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	u, err := url.Parse(s.Endpoint)
	if err != nil || u.Hostname() != "127.0.0.1" {
		t.Fatalf("got: endpoint %q want: http://127.0.0.1:PORT", s.Endpoint)
	}
	for _, tc := range []struct {
		name, access, secret string
		want                 int
	}{
		{"identity", s.AccessKey, s.SecretKey, http.StatusOK},
		{"second identity", "CPHARNESS0002", "harness-secret-second-0123", http.StatusOK},
		{"wrong secret key", s.AccessKey, "wrong-secret-0123456789", http.StatusForbidden},
		{"unknown access key", "CPUNKNOWN0001", s.SecretKey, http.StatusForbidden},
	} {
		status, body, err := s.Do(ctx, http.MethodGet, "/", tc.access, tc.secret)
		if err != nil || status != tc.want {
			t.Errorf("%s: got: %d %v %.300s want: %d", tc.name, status, err, body, tc.want)
		}
	}
	if status, body, err := s.Do(ctx, http.MethodPut, "/harness-bucket", s.AccessKey, s.SecretKey); err != nil || status != http.StatusOK {
		t.Fatalf("got: create bucket %d %v %.300s want: 200", status, err, body)
	}
	status, body, err := s.Do(ctx, http.MethodGet, "/", s.AccessKey, s.SecretKey)
	if err != nil || status != http.StatusOK || !strings.Contains(body, "<Name>harness-bucket</Name>") {
		t.Fatalf("got: ListBuckets %d %v %.500s want: harness-bucket listed", status, err, body)
	}
	// The real s3cmd writes and reads an object with the identity's keys.
	obj := filepath.Join(t.TempDir(), "obj")
	if err := os.WriteFile(obj, []byte("harness object\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := s.S3cmd(ctx, "put", obj, "s3://harness-bucket/dir/obj"); err != nil {
		t.Fatalf("got: %v %s want: s3cmd put", err, out)
	}
	if out, err := s.S3cmd(ctx, "get", "s3://harness-bucket/dir/obj", "-"); err != nil || out != "harness object\n" {
		t.Fatalf("got: s3cmd get %q %v want: the object written", out, err)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if c, err := net.DialTimeout("tcp", u.Host, time.Second); err == nil {
		c.Close()
		t.Errorf("got: %s still accepts connections after Stop want: closed", u.Host)
	}
	if _, err := os.Stat(s.Dir); !os.IsNotExist(err) {
		t.Errorf("got: %s after Stop (%v) want: removed", s.Dir, err)
	}
}

// Without the binary, StartS3 says how to get it.
func TestS3ServerMissingBinary(t *testing.T) {
	t.Setenv("CP_WEED", "/nonexistent/weed")
	_, err := StartS3(context.Background(), S3Options{})
	if err == nil || !strings.Contains(err.Error(), "CP_WEED=/nonexistent/weed") {
		t.Fatalf("got: %v want: the missing CP_WEED binary named", err)
	}
}

// weed's identities file holds exactly the given keys.
func TestS3Config(t *testing.T) {
	b, err := s3Config(S3Keys{"AK0001", "SK0001"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "identities": [
    {
      "name": "cp-test",
      "credentials": [
        {
          "accessKey": "AK0001",
          "secretKey": "SK0001"
        }
      ],
      "actions": [
        "Admin",
        "List",
        "Read",
        "Tagging",
        "Write"
      ]
    }
  ]
}`
	if string(b) != want {
		t.Fatalf("got: %s want: %s", b, want)
	}
}
