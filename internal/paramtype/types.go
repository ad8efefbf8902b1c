package paramtype

// The parameter types of the pack format.
const (
	String       = "string"        // any text without control characters; pattern and max_length narrow it
	Enum         = "enum"          // one of enum
	Number       = "number"        // decimal number: -12, 3.5 (no exponent); min and max bound it
	Integer      = "integer"       // whole number; min and max bound it
	Bool         = "bool"          // true or false
	CIDR         = "cidr"          // IPv4 or IPv6 network in canonical form: 10.244.0.0/16; min and max bound the prefix length
	IPv4CIDR     = "ipv4_cidr"     // IPv4 network in canonical form; min and max bound the prefix length
	IP           = "ip"            // IPv4 or IPv6 address
	IPv4         = "ipv4"          // IPv4 address
	HostPort     = "host_port"     // host:port, the host a DNS name or an IP ([v6] in brackets), port 1-65535
	URL          = "url"           // absolute http(s) URL with a host, RFC 3986 characters only
	Duration     = "duration"      // positive Go duration: 30s, 5m, 1h30m
	Semver       = "semver"        // MAJOR.MINOR.PATCH[-pre]; versions bounds it (">= 1.32.0, < 1.36.0")
	DNSLabel     = "dns_label"     // RFC 1123 label: lower case letters, digits and '-', at most 63
	DNSSubdomain = "dns_subdomain" // RFC 1123 subdomain: dot-separated labels, at most 253
	LabelKey     = "label_key"     // Kubernetes label key: [prefix/]name
	LabelValue   = "label_value"   // Kubernetes label value (may be empty)
	Taint        = "taint"         // Kubernetes taint: key[=value]:NoSchedule|PreferNoSchedule|NoExecute
	Image        = "image"         // container image reference: [registry[:port]/]path[:tag][@sha256:digest]
	Quantity     = "quantity"      // Kubernetes resource quantity: 500Gi, 1.5T, 100M
	Cron         = "cron"          // five-field cron schedule: "0 3 * * *", or @daily, @hourly...
	List         = "list"          // comma-separated items of the type in items (string by default)
	Map          = "map"           // comma-separated key=value entries, values of the type in items
)

// Types lists every parameter type, sorted.
var Types = []string{Bool, CIDR, Cron, DNSLabel, DNSSubdomain, Duration, Enum, HostPort, IP, IPv4, IPv4CIDR, Image, Integer,
	LabelKey, LabelValue, List, Map, Number, Quantity, Semver, String, Taint, URL}

// Known reports whether t is a parameter type.
func Known(t string) bool {
	for _, k := range Types {
		if k == t {
			return true
		}
	}
	return false
}

// forms describes each type's allowed form for error messages.
var forms = map[string]string{
	String:       "text without control characters",
	Enum:         "one of the listed values",
	Number:       "a decimal number such as 2 or 1.5",
	Integer:      "a whole number such as 2",
	Bool:         "true or false",
	CIDR:         "a network in canonical form such as 10.244.0.0/16",
	IPv4CIDR:     "an IPv4 network in canonical form such as 10.244.0.0/16",
	IP:           "an IP address such as 10.0.0.11",
	IPv4:         "an IPv4 address such as 10.0.0.11",
	HostPort:     "host:port such as lb.internal:6443 or 10.0.0.10:6443",
	URL:          "an http(s) URL such as https://mirror.internal:5000 (RFC 3986 characters, no quote, no credentials)",
	Duration:     "a positive duration such as 30s, 5m or 1h",
	Semver:       "a version such as 1.33.4 (major.minor.patch, no leading v)",
	DNSLabel:     "a DNS label: lower case letters, digits and '-', starting and ending with a letter or digit, at most 63 characters",
	DNSSubdomain: "a DNS name: lower case labels separated by dots, at most 253 characters",
	LabelKey:     "a Kubernetes label key such as app.kubernetes.io/name: an optional DNS-name prefix and '/', then at most 63 letters, digits, '-', '_' or '.'",
	LabelValue:   "a Kubernetes label value: at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit, or empty",
	Taint:        "a taint such as dedicated=infra:NoSchedule (key[=value]:NoSchedule|PreferNoSchedule|NoExecute)",
	Image:        "a container image reference such as registry.k8s.io/pause:3.10",
	Quantity:     "a quantity such as 500Gi, 20G or 1.5T",
	Cron:         "a five-field cron schedule such as \"0 3 * * *\" (minute hour day-of-month month day-of-week; *, N, N-M, /STEP and lists) or @hourly, @daily, @weekly, @monthly, @yearly",
	List:         "comma-separated items",
	Map:          "comma-separated key=value entries",
}

// Form describes the allowed form of type t.
func Form(t string) string {
	if f, ok := forms[t]; ok {
		return f
	}
	return forms[String]
}
