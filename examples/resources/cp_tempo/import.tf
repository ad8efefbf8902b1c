import {
  to = cp_tempo.tracing
  id = "tracing@10.0.0.11"
}
