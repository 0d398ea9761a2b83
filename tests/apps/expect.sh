# Shared by the command-line test scripts (sourced): pass/bad report one check each and
# count failures in $failures; expect runs a command into $tmp/out.txt.
pass() { printf 'ok    %s\n' "$*"; }
bad() {
  printf 'FAIL  %s\n' "$*"
  failures=$((failures + 1))
}
# expect WANT_STATUS PATTERN DESCRIPTION CMD...: exit status and (unless PATTERN is empty) a
# line of output matching PATTERN.
expect() {
  local want=$1 pattern=$2 what=$3
  shift 3
  local got=0
  "$@" >"$tmp/out.txt" 2>&1 || got=$?
  if [[ $got != "$want" ]]; then
    bad "$what (exit $got, wanted $want): $(tail -3 "$tmp/out.txt")"
  elif [[ -n $pattern ]] && ! grep -q -- "$pattern" "$tmp/out.txt"; then
    bad "$what: output lacks \"$pattern\": $(tail -3 "$tmp/out.txt")"
  else
    pass "$what"
  fi
}
