package hostsim

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"
)

// blockStore is the object storage a simulated Tempo keeps its blocks in.
type blockStore interface {
	// put writes one object.
	put(key string, body []byte, now time.Time) error
	// list returns the keys under prefix, sorted.
	list(prefix string, now time.Time) ([]string, error)
	// get reads one object.
	get(key string, now time.Time) ([]byte, error)
	// where names the bucket in messages.
	where() string
}

// s3Store is an S3 bucket on a real S3 server and the keys that write to
// it; requests are path-style and signed with Signature Version 4.
type s3Store struct {
	base           string // scheme://host:port
	bucket         string
	access, secret string
}

func (b s3Store) where() string { return b.base + "/" + b.bucket }

// put PUTs one object.
func (b s3Store) put(key string, body []byte, now time.Time) error {
	_, err := b.do(http.MethodPut, "/"+key, nil, body, now)
	return err
}

// get GETs one object.
func (b s3Store) get(key string, now time.Time) ([]byte, error) {
	return b.do(http.MethodGet, "/"+key, nil, nil, now)
}

// list pages through ListObjectsV2 under prefix.
func (b s3Store) list(prefix string, now time.Time) ([]string, error) {
	var keys []string
	token := ""
	for {
		q := url.Values{"list-type": {"2"}, "prefix": {prefix}}
		if token != "" {
			q.Set("continuation-token", token)
		}
		body, err := b.do(http.MethodGet, "", q, nil, now)
		if err != nil {
			return nil, err
		}
		var res struct {
			Contents []struct {
				Key string `xml:"Key"`
			} `xml:"Contents"`
			IsTruncated           bool   `xml:"IsTruncated"`
			NextContinuationToken string `xml:"NextContinuationToken"`
		}
		if err := xml.Unmarshal(body, &res); err != nil {
			return nil, fmt.Errorf("list %s/%s: %w", b.where(), prefix, err)
		}
		for _, c := range res.Contents {
			keys = append(keys, c.Key)
		}
		if !res.IsTruncated || res.NextContinuationToken == "" {
			break
		}
		token = res.NextContinuationToken
	}
	sort.Strings(keys)
	return keys, nil
}

// do sends one signed request for the bucket's path (""), or an object's
// ("/KEY"), and returns the body of a 2xx answer.
func (b s3Store) do(method, path string, q url.Values, body []byte, now time.Time) ([]byte, error) {
	u, err := url.Parse(b.base + "/" + b.bucket + path)
	if err != nil {
		return nil, fmt.Errorf("object URL: %w", err)
	}
	u.RawQuery = q.Encode()
	req, err := http.NewRequest(method, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, u, err)
	}
	signS3(req, body, b.access, b.secret, "us-east-1", now)
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, u, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, u, err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("%s %s: %s", method, u, resp.Status)
	}
	return out, nil
}

// stateBucket is a bucket of a simulated MinIO release, kept in the
// state's Buckets under its name (ENDPOINT/BUCKET).
type stateBucket struct {
	st   *State
	name string
}

func (b stateBucket) where() string { return "http://" + b.name }

func (b stateBucket) put(key string, body []byte, _ time.Time) error {
	if b.st.Buckets == nil {
		b.st.Buckets = map[string]map[string]string{}
	}
	if b.st.Buckets[b.name] == nil {
		b.st.Buckets[b.name] = map[string]string{}
	}
	b.st.Buckets[b.name][key] = string(body)
	return nil
}

func (b stateBucket) list(prefix string, _ time.Time) ([]string, error) {
	var keys []string
	for k := range b.st.Buckets[b.name] {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys, nil
}

func (b stateBucket) get(key string, _ time.Time) ([]byte, error) {
	v, ok := b.st.Buckets[b.name][key]
	if !ok {
		return nil, fmt.Errorf("GET %s/%s: 404 Not Found", b.where(), key)
	}
	return []byte(v), nil
}
