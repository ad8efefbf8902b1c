package paramtype

import (
	"errors"
	"fmt"
	"math"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	version "github.com/hashicorp/go-version"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// DefaultMaxLength bounds a string value when its spec sets no max_length.
const DefaultMaxLength = 1024

// Error is a value refused by its type: the value quoted (at most
// MaxQuoted characters) and the form that is allowed.
type Error struct {
	Value string // the refused value, whole; print it with Quote
	Msg   string // what is wrong and what is allowed
}

func (e *Error) Error() string { return Quote(e.Value) + " " + e.Msg }

func refuse(v, format string, a ...any) error {
	return &Error{Value: v, Msg: fmt.Sprintf(format, a...)}
}

var (
	// Numbers have no leading zeros: bash arithmetic would read 010 as
	// octal and 08 as an error.
	numberRe   = regexp.MustCompile(`^-?(0|[1-9][0-9]{0,14})(\.[0-9]{1,15})?$`)
	integerRe  = regexp.MustCompile(`^-?(0|[1-9][0-9]{0,14})$`)
	digitsRe   = regexp.MustCompile(`^[0-9]+$`)
	semverRe   = regexp.MustCompile(`^(0|[1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,8})(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$`)
	labelRe    = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	lvalueRe   = regexp.MustCompile(`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`)
	quantityRe = regexp.MustCompile(`^[0-9]{1,15}(\.[0-9]{1,15})?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$`)
	cronNumRe  = regexp.MustCompile(`^[0-9]{1,2}$`)
	imageRe    = regexp.MustCompile(`^(([a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?)*(:[0-9]{1,5})?)/)?` +
		`[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*(/[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*)*(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(@sha256:[a-f0-9]{64})?$`)
	// urlChars are the characters RFC 3986 allows in a URI, less the
	// single quote (write it %27), so no URL can close a quoted string.
	urlChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&()*+,;=%"
)

// MaxItems bounds the number of items of a list or entries of a map.
const MaxItems = 256

// Check reports whether v is a value of spec, with an error that quotes
// the value and says the allowed form.
func Check(spec protocol.ParamSpec, v string) error {
	if !utf8.ValidString(v) {
		return refuse(v, "is not valid UTF-8")
	}
	if i := strings.IndexFunc(v, unicode.IsControl); i >= 0 {
		return refuse(v, "holds a control character (%q at byte %d); newlines, tabs and other control characters are not allowed", v[i], i)
	}
	t := spec.Type
	if t == "" {
		t = String
	}
	if len(spec.Enum) > 0 && t != List && t != Map {
		if !slices.Contains(spec.Enum, v) {
			return refuse(v, "is not one of %s", strings.Join(spec.Enum, ", "))
		}
		if t == Enum {
			return nil
		}
	}
	switch t {
	case List:
		return checkList(spec, v)
	case Map:
		return checkMap(spec, v)
	}
	if err := checkScalar(t, spec, v); err != nil {
		return err
	}
	if spec.Pattern != "" {
		re, err := compilePattern(spec.Pattern)
		if err != nil {
			return fmt.Errorf("pattern %q of the parameter: %w", spec.Pattern, err)
		}
		if !re.MatchString(v) {
			return refuse(v, "does not match the pattern %s", spec.Pattern)
		}
	}
	return nil
}

func itemSpec(spec protocol.ParamSpec) protocol.ParamSpec {
	if spec.Items != nil {
		return *spec.Items
	}
	return protocol.ParamSpec{Type: String}
}

func checkList(spec protocol.ParamSpec, v string) error {
	if v == "" {
		return nil
	}
	item := itemSpec(spec)
	items := strings.Split(v, ",")
	if len(items) > MaxItems {
		return refuse(v, "has %d items; at most %d are allowed", len(items), MaxItems)
	}
	for i, it := range items {
		if it == "" {
			return refuse(v, "has an empty item at position %d; write items separated by single commas, with no comma inside an item", i+1)
		}
		if len(spec.Enum) > 0 && !slices.Contains(spec.Enum, it) {
			return refuse(v, "item %d %s is not one of %s", i+1, Quote(it), strings.Join(spec.Enum, ", "))
		}
		if err := Check(item, it); err != nil {
			return refuse(v, "item %d: %v", i+1, err)
		}
	}
	return nil
}

func checkMap(spec protocol.ParamSpec, v string) error {
	if v == "" {
		return nil
	}
	item := itemSpec(spec)
	seen := map[string]bool{}
	entries := strings.Split(v, ",")
	if len(entries) > MaxItems {
		return refuse(v, "has %d entries; at most %d are allowed", len(entries), MaxItems)
	}
	for i, e := range entries {
		k, val, ok := strings.Cut(e, "=")
		if !ok || k == "" {
			return refuse(v, "entry %d %s is not key=value; write key=value entries separated by commas", i+1, Quote(e))
		}
		if seen[k] {
			return refuse(v, "names key %s twice", Quote(k))
		}
		seen[k] = true
		if err := checkLabelKey(k); err != nil {
			return refuse(v, "entry %d key: %v", i+1, err)
		}
		if err := Check(item, val); err != nil {
			return refuse(v, "entry %d value: %v", i+1, err)
		}
	}
	return nil
}

func checkScalar(t string, spec protocol.ParamSpec, v string) error {
	form := Form(t)
	switch t {
	case String:
		max := spec.MaxLength
		if max == 0 {
			max = DefaultMaxLength
		}
		if n := utf8.RuneCountInString(v); n > max {
			return refuse(v, "is %d characters long; at most %d are allowed", n, max)
		}
		return nil
	case Number, Integer:
		re := numberRe
		if t == Integer {
			re = integerRe
		}
		if !re.MatchString(v) {
			return refuse(v, "is not %s", form)
		}
		f, _ := strconv.ParseFloat(v, 64)
		return inRange(v, f, spec, "")
	case Bool:
		if v != "true" && v != "false" {
			return refuse(v, "is not %s", form)
		}
	case CIDR, IPv4CIDR:
		p, err := netip.ParsePrefix(v)
		if err != nil || (t == IPv4CIDR && !p.Addr().Is4()) {
			return refuse(v, "is not %s", form)
		}
		if p.Masked() != p {
			return refuse(v, "has host bits set; write the network %s", p.Masked())
		}
		return inRange(v, float64(p.Bits()), spec, "a prefix length ")
	case IP, IPv4:
		a, err := netip.ParseAddr(v)
		if err != nil || a.Zone() != "" || (t == IPv4 && !a.Is4()) {
			return refuse(v, "is not %s", form)
		}
	case HostPort:
		return checkHostPort(v)
	case URL:
		return checkURL(v)
	case Duration:
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return refuse(v, "is not %s", form)
		}
	case Semver:
		if !semverRe.MatchString(v) {
			return refuse(v, "is not %s", form)
		}
		if spec.Versions != "" {
			c, err := version.NewConstraint(spec.Versions)
			if err != nil {
				return fmt.Errorf("versions %q of the parameter: %w", spec.Versions, err)
			}
			ver, err := version.NewSemver(v)
			if err != nil || !c.Check(ver) {
				return refuse(v, "is outside the supported versions %s", spec.Versions)
			}
		}
	case DNSLabel:
		if len(v) > 63 || !labelRe.MatchString(v) {
			return refuse(v, "is not %s", form)
		}
	case DNSSubdomain:
		if err := checkSubdomain(v); err != nil {
			return err
		}
	case LabelKey:
		return checkLabelKey(v)
	case LabelValue:
		if len(v) > 63 || !lvalueRe.MatchString(v) {
			return refuse(v, "is not %s", form)
		}
	case Taint:
		return checkTaint(v)
	case Image:
		if len(v) > 255 || !imageRe.MatchString(v) {
			return refuse(v, "is not %s", form)
		}
	case Quantity:
		if !quantityRe.MatchString(v) {
			return refuse(v, "is not %s", form)
		}
	case Cron:
		return checkCron(v)
	case Enum:
		return refuse(v, "is not one of the parameter's values (the pack declares none)")
	default:
		return fmt.Errorf("unknown parameter type %q (known: %s)", t, strings.Join(Types, ", "))
	}
	return nil
}

func inRange(v string, f float64, spec protocol.ParamSpec, what string) error {
	if spec.Min != nil && f < *spec.Min {
		return refuse(v, "is below the smallest allowed %s%s", what, fmtNum(*spec.Min))
	}
	if spec.Max != nil && f > *spec.Max {
		return refuse(v, "is above the largest allowed %s%s", what, fmtNum(*spec.Max))
	}
	return nil
}

func fmtNum(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func checkSubdomain(v string) error {
	if v == "" || len(v) > 253 {
		return refuse(v, "is not %s", Form(DNSSubdomain))
	}
	for _, l := range strings.Split(v, ".") {
		if len(l) > 63 || !labelRe.MatchString(l) {
			return refuse(v, "is not %s", Form(DNSSubdomain))
		}
	}
	return nil
}

func checkLabelKey(v string) error {
	name := v
	if prefix, n, ok := strings.Cut(v, "/"); ok {
		if err := checkSubdomain(prefix); err != nil {
			return refuse(v, "is not %s", Form(LabelKey))
		}
		name = n
	}
	if name == "" || len(name) > 63 || !lvalueRe.MatchString(name) {
		return refuse(v, "is not %s", Form(LabelKey))
	}
	return nil
}

func checkTaint(v string) error {
	kv, effect, ok := strings.Cut(v, ":")
	if !ok || (effect != "NoSchedule" && effect != "PreferNoSchedule" && effect != "NoExecute") {
		return refuse(v, "is not %s", Form(Taint))
	}
	k, val, _ := strings.Cut(kv, "=")
	if checkLabelKey(k) != nil || len(val) > 63 || !lvalueRe.MatchString(val) {
		return refuse(v, "is not %s", Form(Taint))
	}
	return nil
}

// Host checks a host name or IP address, as in host_port and URLs. A
// name's last label is not all digits (RFC 1123 2.1), so 10.0.0.300 is
// neither.
func Host(v string) error {
	if a, err := netip.ParseAddr(v); err == nil && a.Zone() == "" {
		return nil
	}
	if err := checkSubdomain(v); err != nil || digitsRe.MatchString(v[strings.LastIndex(v, ".")+1:]) {
		return refuse(v, "is not a host name (lower case DNS name) or an IP address")
	}
	return nil
}

func checkHostPort(v string) error {
	h, p, err := splitHostPort(v)
	if err != nil {
		return refuse(v, "is not %s", Form(HostPort))
	}
	if err := Host(h); err != nil {
		return refuse(v, "is not %s: %v", Form(HostPort), err)
	}
	if err := Port(p); err != nil {
		return refuse(v, "is not %s: %v", Form(HostPort), err)
	}
	return nil
}

func splitHostPort(v string) (host, port string, err error) {
	if strings.HasPrefix(v, "[") {
		end := strings.Index(v, "]:")
		if end < 0 {
			return "", "", errors.New("missing ]:port")
		}
		h := v[1:end]
		if a, err := netip.ParseAddr(h); err != nil || !a.Is6() {
			return "", "", errors.New("not an IPv6 address in brackets")
		}
		return h, v[end+2:], nil
	}
	h, p, ok := strings.Cut(v, ":")
	if !ok || strings.Contains(p, ":") {
		return "", "", errors.New("not host:port")
	}
	return h, p, nil
}

// Port checks a TCP or UDP port number, 1-65535.
func Port(p string) error {
	n, err := strconv.Atoi(p)
	if err != nil || !integerRe.MatchString(p) || n < 1 || n > 65535 {
		return refuse(p, "is not a port between 1 and 65535")
	}
	return nil
}

func checkURL(v string) error {
	for i, r := range v {
		if !strings.ContainsRune(urlChars, r) {
			return refuse(v, "holds %q at byte %d, which a URL may not hold unencoded; write it as %%%02X or leave it out", r, i, r)
		}
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "" {
		return refuse(v, "is not %s", Form(URL))
	}
	if u.User != nil {
		return refuse(v, "holds credentials before '@'; a parameter is shown in the plan, so pass credentials another way")
	}
	if err := Host(u.Hostname()); err != nil {
		return refuse(v, "is not %s: %v", Form(URL), err)
	}
	if p := u.Port(); p != "" {
		if err := Port(p); err != nil {
			return refuse(v, "is not %s: %v", Form(URL), err)
		}
	}
	return nil
}

// compilePattern anchors a pack pattern so it must match a whole value.
// Compiled patterns are kept: the same pack pattern is checked for every
// value of its parameter, in every plan of a run.
func compilePattern(p string) (*regexp.Regexp, error) {
	if re, ok := patterns.Load(p); ok {
		return re.(*regexp.Regexp), nil
	}
	re, err := regexp.Compile(`^(?:` + p + `)$`)
	if err != nil {
		return nil, err
	}
	patterns.Store(p, re)
	return re, nil
}

var patterns sync.Map // pattern -> *regexp.Regexp

// cronFields are the five fields of a cron schedule with their ranges
// (day of week 0-6 from Sunday, as the cron library of Kubernetes CronJobs reads it).
var cronFields = [5]struct {
	name   string
	lo, hi int
}{{"minute", 0, 59}, {"hour", 0, 23}, {"day of month", 1, 31}, {"month", 1, 12}, {"day of week", 0, 6}}

// cronMacros are the schedules Kubernetes CronJobs accept by name.
var cronMacros = []string{"@annually", "@daily", "@hourly", "@midnight", "@monthly", "@weekly", "@yearly"}

func checkCron(v string) error {
	if slices.Contains(cronMacros, v) {
		return nil
	}
	f := strings.Split(v, " ")
	if len(f) != 5 {
		return refuse(v, "is not %s: it has %d space-separated fields, not 5", Form(Cron), len(f))
	}
	for i, x := range f {
		c := cronFields[i]
		if err := cronField(x, c.lo, c.hi); err != nil {
			return refuse(v, "is not %s: the %s field %s %v", Form(Cron), c.name, Quote(x), err)
		}
	}
	return nil
}

// cronField checks one field: comma-separated items, each *, N or N-M,
// optionally followed by /STEP, every number within lo..hi.
func cronField(x string, lo, hi int) error {
	num := func(s string) (int, bool) {
		if !cronNumRe.MatchString(s) {
			return 0, false
		}
		n, _ := strconv.Atoi(s)
		return n, n >= lo && n <= hi
	}
	for _, item := range strings.Split(x, ",") {
		rng, step, hasStep := strings.Cut(item, "/")
		if hasStep {
			if n, _ := strconv.Atoi(step); !cronNumRe.MatchString(step) || n < 1 || n > hi {
				return fmt.Errorf("has step %q; write a step between 1 and %d", step, hi)
			}
		}
		if rng == "*" {
			continue
		}
		a, b, isRange := strings.Cut(rng, "-")
		na, ok := num(a)
		if !ok {
			return fmt.Errorf("has %q; write *, a number between %d and %d, a range N-M or a list of them", item, lo, hi)
		}
		if isRange {
			nb, ok := num(b)
			if !ok || nb < na {
				return fmt.Errorf("has range %q; write N-M with %d <= N <= M <= %d", rng, lo, hi)
			}
		}
	}
	return nil
}
