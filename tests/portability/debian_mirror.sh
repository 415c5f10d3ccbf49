# debian_mirror (sourced by the portability tests): prints the Debian archive this machine's apt
# uses (its deb822 .sources or one-line .list files), where Debian 13 is fetched from;
# LENET_DEBIAN_MIRROR overrides it. Prints nothing, and returns 1, where apt names none.
debian_mirror() {
  if [[ -n ${LENET_DEBIAN_MIRROR:-} ]]; then
    echo "$LENET_DEBIAN_MIRROR"
    return 0
  fi
  local uri
  uri=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
    awk '/^URIs:/ { for (i = 2; i <= NF; i++) print $i }' | grep -m1 -E '^https?://.*/debian/?$')
  [[ -n $uri ]] || uri=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
    grep -E '^deb ' | grep -oE 'https?://[^ ]+/debian/?( |$)' | head -n 1 | tr -d ' ')
  [[ -n $uri ]] || return 1
  echo "${uri%/}"
}
