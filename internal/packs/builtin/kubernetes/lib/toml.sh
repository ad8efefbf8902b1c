# shellcheck shell=bash
# toml_get TABLE KEY prints KEY's value in TABLE of the TOML on stdin,
# quotes and brackets removed. toml_set TABLE KEY VALUE sets KEY in TABLE
# of the TOML on stdin (replacing its line, or adding it after the table's
# header, or adding the table at the end) and prints the result. A table
# is named with double quotes; headers are compared without spaces and
# with ' read as ", so both containerd 1.x's
# [plugins."io.containerd.grpc.v1.cri"] and 2.x's
# [plugins.'io.containerd.cri.v1.runtime'] match. Values are written as
# given: the caller quotes strings.
# shellcheck disable=SC2016 # awk's own $0, not the shell's
toml_awk='
function norm(h) { gsub(/[[:space:]]/, "", h); gsub(sprintf("%c", 39), "\"", h); return h }
/^[[:space:]]*\[[^[]/ { cur = norm($0) }
'
toml_get() {
  awk -v table="[$1]" -v key="$2" "$toml_awk"'
    cur == table && $0 ~ "^[[:space:]]*" key "[[:space:]]*=" {
      v = $0; sub(/^[^=]*=[[:space:]]*/, "", v); gsub(/["\047\[\][:space:]]/, "", v); print v; exit
    }'
}
toml_set() {
  awk -v table="[$1]" -v key="$2" -v val="$3" "$toml_awk"'
    { line[NR] = $0 }
    cur == table && !at { at = NR }
    cur == table && !done && $0 ~ "^[[:space:]]*" key "[[:space:]]*=" {
      match($0, /^[[:space:]]*/); line[NR] = substr($0, 1, RLENGTH) key " = " val; done = 1
    }
    END {
      for (i = 1; i <= NR; i++) {
        print line[i]
        if (i == at && !done) print "  " key " = " val
      }
      if (!at) { print ""; print table; print "  " key " = " val }
    }'
}
