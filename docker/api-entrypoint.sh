#!/bin/sh
# Starts the state-query-api (the command after this script). With API_TOKEN_FILE set and no
# UNREAD_API_TOKEN given, the API gets the token in that file, made there at the first start:
# the compose stack's API listens on its container's every interface, and a token is what keeps
# any other page and any rebound DNS name out (docs/operations.md, "The stack"). The token is
# never printed; read it from the file.
set -eu
if [ -z "${UNREAD_API_TOKEN:-}" ] && [ -n "${API_TOKEN_FILE:-}" ]; then
  if [ ! -s "$API_TOKEN_FILE" ]; then
    # 24 random bytes, URL-safe: 32 characters, about 192 bits.
    (umask 077 && head -c 24 /dev/urandom | base64 | tr '+/' '-_' > "$API_TOKEN_FILE")
  fi
  UNREAD_API_TOKEN=$(cat "$API_TOKEN_FILE")
  export UNREAD_API_TOKEN
fi
exec "$@"
