package testhosts

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
)

// BenchmarkStart10 measures starting (and stopping) ten hosts.
func BenchmarkStart10(b *testing.B) {
	names := make([]string, 10)
	for i := range names {
		names[i] = fmt.Sprintf("bench-%d", i+1)
	}
	for i := 0; i < b.N; i++ {
		c, err := Start(context.Background(), Options{Names: names})
		if err != nil {
			if errors.Is(err, ErrUnavailable) && os.Getenv("CI") != "true" {
				b.Skip(err)
			}
			b.Fatal(err)
		}
		b.StopTimer()
		if err := c.Remove(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}
