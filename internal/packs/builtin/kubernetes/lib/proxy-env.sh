# shellcheck shell=bash
# The proxy configure-proxy wrote for curl, helm and kubectl: KEY=VALUE
# lines of a root-only file, read line by line (never sourced), each value
# checked again (with the including script's check NAME VALUE REGEX FORM)
# and exported.
if [[ -r /etc/cp/kubernetes/proxy.env ]]; then
  while IFS='=' read -r k v; do
    case $k in
      HTTP_PROXY | HTTPS_PROXY | NO_PROXY | http_proxy | https_proxy | no_proxy)
        check "$k in /etc/cp/kubernetes/proxy.env" "$v" '^[]A-Za-z0-9._~%!$&()*+,;=:@/?[-]*$' "a proxy setting"
        export "${k?}=$v"
        ;;
    esac
  done </etc/cp/kubernetes/proxy.env
fi
