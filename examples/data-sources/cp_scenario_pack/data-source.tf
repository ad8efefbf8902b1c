# The contract of the embedded Tempo pack: what it requires and provides,
# its templates and every job of its library.
data "cp_scenario_pack" "tempo" {
  id      = "tempo"
  version = "~> 1.0"
}

output "tempo_requires" {
  value = [for r in data.cp_scenario_pack.tempo.requires : r.capability]
}

output "tempo_install_stages" {
  value = [
    for t in data.cp_scenario_pack.tempo.templates : [for s in t.stages : s.title]
    if t.action == "install"
  ][0]
}
