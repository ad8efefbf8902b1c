package capability

import (
	"math"
	"regexp"
	"strconv"
	"strings"
)

// gbSuffix marks an attribute measured in gigabytes (capacity_gb), which
// may also be given as a Kubernetes quantity: a created MinIO exports its
// storage_size parameter (10Gi) as capacity_gb.
const gbSuffix = "_gb"

var quantityRe = regexp.MustCompile(`^([0-9]{1,15}(?:\.[0-9]{1,15})?)(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)$`)

// quantityBytes are the bytes of one unit of each quantity suffix.
var quantityBytes = map[string]float64{
	"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40, "Pi": 1 << 50, "Ei": 1 << 60,
	"k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18,
}

// attrNumber reads attribute attr's value v as a number: a plain number,
// or, for an attribute in gigabytes (…_gb), a Kubernetes quantity in
// gigabytes of 10^9 bytes (10Gi is 10.74). shown is v as a check's
// detail renders it: "10Gi (10.74 GB)" for a quantity.
func attrNumber(attr, v string) (n float64, shown string, ok bool) {
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return f, v, true
	}
	if !strings.HasSuffix(attr, gbSuffix) {
		return 0, v, false
	}
	m := quantityRe.FindStringSubmatch(v)
	if m == nil {
		return 0, v, false
	}
	f, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, v, false
	}
	gb := f * quantityBytes[m[2]] / 1e9
	return gb, v + " (" + strconv.FormatFloat(math.Round(gb*100)/100, 'f', -1, 64) + " GB)", true
}
