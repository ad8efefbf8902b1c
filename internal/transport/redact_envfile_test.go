package transport

import (
	"strings"
	"testing"
)

// The value of each KEY=VALUE line of a registered env file (S3
// credentials) is masked on its own too, as a job could print it.
func TestRedactorMasksEnvFileValues(t *testing.T) {
	var r Redactor
	r.Add("AWS_ACCESS_KEY_ID=AKIAEXAMPLE0001\nAWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY\n")
	out := r.String("secret is wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY, reversed " + reverse("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"))
	if strings.Contains(out, "wJalrXUtnFEMI") || strings.Contains(out, "YEKELPMAXE") || strings.Count(out, Mask) != 2 {
		t.Fatalf("got: %q want: the bare secret key and its reverse masked", out)
	}
	// Short values (an access key id under 16 bytes) and text that is no
	// env line are left alone, as for every derived form.
	if out := r.String("key id AKIAEXAMPLE0001"); out != "key id AKIAEXAMPLE0001" {
		t.Fatalf("got: %q want: a 15-byte value not masked on its own", out)
	}
}
