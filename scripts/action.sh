#!/usr/bin/env bash
# The GitHub Action's logic (action.yml runs it): one `gopi run --json`
# from the action's inputs, its result line turned into step outputs and a
# job summary, and the step's exit status decided by gopi's exit code.
# Runs the same outside GitHub: set the INPUT_* variables below and
# GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_WORKSPACE and RUNNER_TEMP to
# files and folders of your own (testdata/fleet/action_*.txtar do).
#
# Inputs (action.yml maps each input to its variable):
#   INPUT_PROMPT, INPUT_PROMPT_FILE    the prompt, or a file holding it (one of the two)
#   INPUT_PROVIDER, INPUT_MODEL, INPUT_BASE_URL, INPUT_OUTPUT_SCHEMA,
#   INPUT_MAX_BUDGET_USD, INPUT_MAX_BUDGET_TOKENS, INPUT_TIMEOUT,
#   INPUT_MAX_STEPS, INPUT_SANDBOX, INPUT_TOOLS
#                                      gopi run's flags of the same names
#   INPUT_ARGS                         further arguments, split as xargs splits (quotes group words)
#   INPUT_SESSION                      a session file (a path: resumed, or created when missing),
#                                      or the name of an artifact the session was uploaded as
#   INPUT_LEAF                         the entry to continue from (default: the newest)
#   INPUT_UPLOAD_SESSION               prepare the session for upload under this artifact name
#   INPUT_OK_EXIT_CODES                gopi exit codes that do not fail the step (default "0")
#   INPUT_WORKING_DIRECTORY            where gopi works (default $GITHUB_WORKSPACE); the
#                                      paths above stay relative to where the step runs
#   INPUT_VERSION                      a release to download; empty: build from this repository
#   INPUT_SANDBOX_USERNS               auto (default): where the kernel refuses user namespaces to
#                                      programs without an AppArmor profile, load one (with sudo)
#                                      that allows them to this gopi binary; none: leave it
# Other variables:
#   GOPI_BIN                           a gopi binary to use instead (no build, no download)
#   GOPI_SESSION_DOWNLOAD              the folder an artifact named by INPUT_SESSION was downloaded to
#   GOPI_RELEASE_URL                   where releases are (default: the releases of the action's
#                                      repository, GOPI_ACTION_REPOSITORY, on GitHub)
#   GOPI_USERNS_RESTRICT, GOPI_APPARMOR_DIR
#                                      the kernel switch read and the folder the profile is
#                                      written to (default /proc/sys/kernel/apparmor_restrict_unprivileged_userns
#                                      and /etc/apparmor.d)
# Outputs: result, result-file, text, structured, exit-code, reason,
# session-file, leaf-id, cost-usd, files (a JSON array of paths),
# upload-dir (with INPUT_UPLOAD_SESSION).
set -euo pipefail

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
: "${GITHUB_OUTPUT:?set GITHUB_OUTPUT to the file step outputs go to}"
: "${GITHUB_STEP_SUMMARY:?set GITHUB_STEP_SUMMARY to the file the job summary goes to}"
: "${RUNNER_TEMP:?set RUNNER_TEMP to a scratch folder}"
workdir=${INPUT_WORKING_DIRECTORY:-${GITHUB_WORKSPACE:-$PWD}}

die() { # a usage error of the action itself: exit 2, as gopi's own
  echo "::error title=gopi action::$*" >&2
  echo "exit-code=2" >> "$GITHUB_OUTPUT"
  exit 2
}

# Keys never show in the log: the runner masks every value announced with
# ::add-mask::, one line at a time. The names are those gopi keeps from
# tools (pkg/assemble/secrets.go), plus an --api-key (or the content of an
# --api-key-file) given in args.
mask() {
  local line
  while IFS= read -r line; do
    if [ -n "$line" ]; then echo "::add-mask::$line"; fi
  done <<< "$1"
}
while IFS= read -r name; do
  mask "${!name}"
done < <(compgen -e | grep -E '_(API_KEY|AUTH_TOKEN|OAUTH_TOKEN|SECRET_KEY)$' || true)

extra=()
if [ -n "${INPUT_ARGS:-}" ]; then
  words=$(printf '%s' "$INPUT_ARGS" | xargs -n1 printf '%s\n' 2> /dev/null) ||
    die "args: unbalanced quotes in: $INPUT_ARGS"
  if [ -n "$words" ]; then mapfile -t extra <<< "$words"; fi
  for i in "${!extra[@]}"; do
    case ${extra[$i]} in
      --api-key) if [ $((i + 1)) -lt ${#extra[@]} ]; then mask "${extra[$((i + 1))]}"; fi ;;
      --api-key=*) mask "${extra[$i]#--api-key=}" ;;
      --api-key-file) if [ -f "${extra[$((i + 1))]:-}" ]; then mask "$(< "${extra[$((i + 1))]}")"; fi ;;
      --api-key-file=*) if [ -f "${extra[$i]#--api-key-file=}" ]; then mask "$(< "${extra[$i]#--api-key-file=}")"; fi ;;
    esac
  done
fi

# The binary: given, downloaded, or built from this repository.
find_gopi() {
  if [ -n "${GOPI_BIN:-}" ]; then
    command -v "$GOPI_BIN" || die "GOPI_BIN: $GOPI_BIN is not a program"
    return
  fi
  local os arch
  case $(uname -s) in Linux) os=linux ;; Darwin) os=darwin ;; *) os=windows ;; esac
  case $(uname -m) in x86_64 | amd64) arch=amd64 ;; aarch64 | arm64) arch=arm64 ;; *) die "no gopi build for $(uname -m)" ;; esac
  if [ -n "${INPUT_VERSION:-}" ]; then
    local v=$INPUT_VERSION dir="$RUNNER_TEMP/gopi-$INPUT_VERSION"
    local repo=${GOPI_ACTION_REPOSITORY:-${GITHUB_ACTION_REPOSITORY:-}}
    # a runner keeps the action in .../_actions/OWNER/REPO/REF
    if [ -z "$repo" ] && [[ ${GITHUB_ACTION_PATH:-} =~ /_actions/([^/]+/[^/]+)/[^/]+/?$ ]]; then
      repo=${BASH_REMATCH[1]}
    fi
    [ -n "${GOPI_RELEASE_URL:-}" ] || [ -n "$repo" ] ||
      die "version: the action's repository is unknown here: set GOPI_RELEASE_URL to where releases are"
    local url=${GOPI_RELEASE_URL:-https://github.com/$repo/releases/download}
    local name="gopi-$v-$os-$arch"
    mkdir -p "$dir"
    if [ ! -x "$dir/gopi" ]; then
      curl -fsSL --retry 3 -o "$dir/$name" "$url/$v/$name" >&2 || die "version: cannot download $url/$v/$name"
      curl -fsSL --retry 3 -o "$dir/SHA256SUMS" "$url/$v/SHA256SUMS-$v" >&2 || die "version: cannot download $url/$v/SHA256SUMS-$v"
      (cd "$dir" && grep " $name\$" SHA256SUMS | sha256sum -c --quiet -) >&2 || die "version: $name does not match SHA256SUMS-$v"
      chmod +x "$dir/$name" && mv "$dir/$name" "$dir/gopi"
    fi
    echo "$dir/gopi"
    return
  fi
  command -v go > /dev/null || die "version is empty, so the action builds gopi from source, which needs Go: add actions/setup-go first, or give a release as version"
  (cd "$src" && CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o "$RUNNER_TEMP/gopi-src/gopi" .) >&2 || die "building gopi from $src failed"
  echo "$RUNNER_TEMP/gopi-src/gopi"
}

# paths are relative to where the step runs, also with working-directory
abs() { case $1 in /* | "") echo "$1" ;; *) echo "$PWD/$1" ;; esac; }

args=(run --json)
add() { [ -n "$2" ] && args+=("$1" "$2"); return 0; }
add --provider "${INPUT_PROVIDER:-}"
add --model "${INPUT_MODEL:-}"
add --base-url "${INPUT_BASE_URL:-}"
add --output-schema "$(abs "${INPUT_OUTPUT_SCHEMA:-}")"
add --max-budget-usd "${INPUT_MAX_BUDGET_USD:-}"
add --max-budget-tokens "${INPUT_MAX_BUDGET_TOKENS:-}"
add --timeout "${INPUT_TIMEOUT:-}"
add --max-steps "${INPUT_MAX_STEPS:-}"
add --sandbox "${INPUT_SANDBOX:-}"
add --tools "${INPUT_TOOLS:-}"

# The session: a file, or an artifact downloaded (by action.yml) into
# GOPI_SESSION_DOWNLOAD with the leaf it ended at.
session=${INPUT_SESSION:-} leaf=${INPUT_LEAF:-}
if [ -n "$session" ] && [[ $session != */* && $session != *.jsonl ]]; then
  dl=${GOPI_SESSION_DOWNLOAD:-$RUNNER_TEMP/gopi-session-$session}
  if [ -f "$dl/session.jsonl" ]; then
    session="$dl/session.jsonl"
    if [ -z "$leaf" ] && [ -f "$dl/leaf-id" ]; then leaf=$(< "$dl/leaf-id"); fi
    echo "gopi: resuming the session of artifact $INPUT_SESSION${leaf:+ at leaf $leaf}" >&2
  else
    [ -n "$leaf" ] && die "session: artifact $INPUT_SESSION was not found, so leaf $leaf cannot be resumed"
    echo "gopi: no artifact $INPUT_SESSION yet: starting a new session" >&2
    session="$RUNNER_TEMP/gopi-sessions/session.jsonl"
    mkdir -p "$(dirname "$session")"
  fi
fi
if [ -n "$session" ]; then
  session=$(abs "$session")
  args+=(--session "$session")
  if [ -n "$leaf" ]; then
    args+=(--leaf "$leaf")
  elif [ -s "$session" ]; then
    args+=(--continue)
  fi
elif [ -n "$leaf" ]; then
  die "leaf $leaf needs the session it is in: give session too"
fi

if [ -n "${INPUT_PROMPT:-}" ] && [ -n "${INPUT_PROMPT_FILE:-}" ]; then
  die "give prompt or prompt-file, not both"
elif [ -n "${INPUT_PROMPT:-}" ]; then
  stdin=/dev/null
  args+=(--no-stdin "${extra[@]}" -- "$INPUT_PROMPT")
elif [ -n "${INPUT_PROMPT_FILE:-}" ]; then
  [ -f "$INPUT_PROMPT_FILE" ] || die "prompt-file: $INPUT_PROMPT_FILE does not exist"
  stdin=$(abs "$INPUT_PROMPT_FILE")
  args+=("${extra[@]}")
else
  die "give a prompt (prompt) or a file holding it (prompt-file)"
fi

# Ubuntu 24.04 (GitHub's hosted runners among them) refuses user
# namespaces to programs that no AppArmor profile allows them. gopi's
# default sandbox needs one for a user other than root in a checkout, and
# fails closed without it. Hosted runners give the job sudo: the action then
# loads a profile that allows user namespaces to this one binary (the
# runner's other programs stay as they are) rather than turning the
# restriction off for the whole machine.
allow_userns() {
  local restrict=${GOPI_USERNS_RESTRICT:-/proc/sys/kernel/apparmor_restrict_unprivileged_userns}
  [ "${INPUT_SANDBOX_USERNS:-auto}" = auto ] || return 0
  case ${INPUT_SANDBOX:-} in read-only | off) return 0 ;; esac
  [ "$(id -u)" != 0 ] || return 0
  [ "$(cat "$restrict" 2> /dev/null)" = 1 ] || return 0
  local bin dir=${GOPI_APPARMOR_DIR:-/etc/apparmor.d}
  bin=$(readlink -f "$1")
  if sudo -n true 2> /dev/null &&
    printf 'abi <abi/4.0>,\ninclude <tunables/global>\n\nprofile gopi-action "%s" flags=(unconfined) {\n  userns,\n}\n' "$bin" |
    sudo -n tee "$dir/gopi-action" > /dev/null &&
    sudo -n apparmor_parser -r "$dir/gopi-action" >&2; then
    echo "gopi: this runner refuses user namespaces to programs without an AppArmor profile; loaded $dir/gopi-action, which allows them to $bin only, so that the sandbox applies" >&2
  else
    echo "::warning title=gopi sandbox::this runner refuses user namespaces (kernel.apparmor_restrict_unprivileged_userns=1) and the action could not load an AppArmor profile with sudo, so the workspace-write sandbox fails closed in a checkout: run as root, give sandbox: read-only, or allow user namespaces on the runner first" >&2
  fi
}

case ${INPUT_SANDBOX_USERNS:-auto} in
  auto | none) ;;
  *) die "sandbox-userns: $INPUT_SANDBOX_USERNS is neither auto nor none" ;;
esac

gopi=$(find_gopi)
allow_userns "$gopi"
result_file="$RUNNER_TEMP/gopi-result.json"
set +e
(cd "$workdir" && "$gopi" "${args[@]}" < "$stdin" > "$result_file")
code=$?
set -e
line=$(tail -n 1 "$result_file")
if ! jq -e 'type == "object" and .type == "result"' > /dev/null 2>&1 <<< "$line"; then
  line=$(jq -cn --argjson code "$code" '{type: "result", reason: "error", isError: true,
    error: {class: "internal", message: "gopi exited \($code) without a result line"}}')
fi
field() { jq -r "$1 // empty" <<< "$line"; }

# step outputs: name=value, or a multi-line value between two lines of a
# random delimiter
output() {
  local delim
  if [[ $2 != *$'\n'* ]]; then
    printf '%s=%s\n' "$1" "$2" >> "$GITHUB_OUTPUT"
    return
  fi
  delim="gopi_$(od -An -tx8 -N8 /dev/urandom | tr -d ' ')"
  printf '%s<<%s\n%s\n%s\n' "$1" "$delim" "$2" "$delim" >> "$GITHUB_OUTPUT"
}
out_line=$line
# an output holds at most 1 MB: a long run's messages stay in result-file
if [ ${#out_line} -gt 900000 ]; then
  out_line=$(jq -c 'del(.messages) + {messagesOmitted: true}' <<< "$line")
fi
output result "$out_line"
output result-file "$result_file"
output text "$(field .text)"
output structured "$(jq -c '.structured // empty' <<< "$line")"
output exit-code "$code"
output reason "$(field .reason)"
output session-file "$(field .session.file)"
output leaf-id "$(field .session.leafId)"
output cost-usd "$(jq -r '.usage.cost.total // 0 | . * 1e6 | round / 1e6' <<< "$line")"
output files "$(jq -c '[.files[]?.path]' <<< "$line")"

# the session and its leaf, ready for actions/upload-artifact
if [ -n "${INPUT_UPLOAD_SESSION:-}" ] && [ -n "$(field .session.file)" ]; then
  up="$RUNNER_TEMP/gopi-upload-$INPUT_UPLOAD_SESSION"
  mkdir -p "$up"
  cp "$(field .session.file)" "$up/session.jsonl"
  field .session.leafId > "$up/leaf-id"
  output upload-dir "$up"
fi

# the job summary
jq -r --argjson code "$code" '
  def cell: tostring | gsub("\\|"; "\\|") | gsub("\n"; " ");
  def usd: . * 1e6 | round / 1e6;
  "### gopi: \(.reason // "error") (exit \($code))", "",
  (if (.text // "") != "" then .text, "" else empty end),
  (if .error then "**Error** (\(.error.class)): \(.error.message | cell)", "" else empty end),
  "| steps | input tokens | output tokens | cost (USD) | sandbox |",
  "| ---: | ---: | ---: | ---: | --- |",
  "| \(.steps // 0) | \(.usage.input // 0) | \(.usage.output // 0) | \(.usage.cost.total // 0 | usd) | \(.sandbox // "") |", "",
  "**Files changed** (\(.files // [] | length))",
  (.files // [] | if length == 0 then "- none" else .[] | "- `\(.path | cell)` (\(.change))" end), "",
  "**Sandbox denials** (\(.denials // [] | length))",
  (.denials // [] | if length == 0 then "- none" else .[] | "- \(.tool) \(.operation) `\(.target | cell)`: \(.rule | cell)" end), "",
  (if .session then "Session `\(.session.id)`, leaf `\(.session.leafId)`" else empty end), ""
' <<< "$line" >> "$GITHUB_STEP_SUMMARY"

for ok in ${INPUT_OK_EXIT_CODES:-0}; do
  [ "$ok" = "$code" ] && exit 0
done
echo "::error title=gopi::gopi exited $code ($(field .reason)): $(field .error.message)" >&2
exit "$code"
