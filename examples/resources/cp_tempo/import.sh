# [id@]address[:port] of a host that keeps the resource's intent record
tofu import cp_tempo.tracing tracing@10.0.0.11
