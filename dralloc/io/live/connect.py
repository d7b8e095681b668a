"""A connection to a live cluster's API server through the official
``kubernetes`` client: the kubeconfig found and read as kubectl finds it
(``--kubeconfig``, else ``$KUBECONFIG``, a list of files, else
``~/.kube/config``), the context chosen (``--context``, else the
kubeconfig's current one), and GET requests whose every failure is one
:class:`~dralloc.errors.InputError` line naming the context and the server:
a missing or unreadable kubeconfig, an unknown context, a server that cannot
be reached or does not answer in time, refused credentials (401), a
forbidden list (403), any other API status. The client's authentication
(tokens, client certificates, exec plugins, token refresh) is the client's."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson

from dralloc.errors import InputError

DEFAULT_TIMEOUT = 60.0   # seconds a request may take (connecting, then each read)


class StatusError(InputError):
    """The API server answered a request with a failure status (a
    ``metav1.Status``): ``code`` (401, 403, 410...) and ``reason``
    (``Unauthorized``, ``Forbidden``, ``Expired``...)."""

    def __init__(self, message: str, code: int, reason: str) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason


def client_config() -> Any:
    """The client's ``kubernetes.config`` module; without the client
    installed, an input error saying how to install it."""
    try:
        from kubernetes import config
    except ImportError:
        raise InputError("reading a cluster needs the kubernetes client: pip install 'dralloc[live]' "
                         "(or kubernetes>=37)") from None
    return config


def _configuration() -> Any:
    """The client's configuration before the kubeconfig fills it: a refused
    or reset connection is tried once more, a read that timed out is not
    (so a request takes at most about its timeout, as kubectl's)."""
    from kubernetes.client import Configuration
    from urllib3.util.retry import Retry

    cfg = Configuration()
    cfg.retries = Retry(total=1, read=0, redirect=3, raise_on_status=False)
    return cfg


def kubeconfig_files(given: str | None) -> str:
    """The kubeconfig path list kubectl would read: ``given``, else
    ``$KUBECONFIG`` (paths joined by ``os.pathsep``), else ``~/.kube/config``."""
    if given:
        return given
    return os.environ.get("KUBECONFIG") or str(Path("~/.kube/config").expanduser())


def _existing(paths: str) -> list[str]:
    return [p for p in paths.split(os.pathsep) if p and Path(p).expanduser().exists()]


def _shown(paths: str) -> str:
    """The kubeconfig file, or the files of a list, as messages name them."""
    return ", ".join(p for p in paths.split(os.pathsep) if p)


def _config_error(e: BaseException) -> str:
    """The client's message for a kubeconfig it cannot use, in one line."""
    text = getattr(e, "strerror", None) or str(e) or type(e).__name__
    text = text.replace("Invalid kube-config file. ", "").replace("Invalid kube-config. ", "")
    return " ".join(text.split())


class Connection:
    """One context of a kubeconfig, connected (nothing is sent until the
    first :meth:`get`)."""

    def __init__(self, kubeconfig: str | None = None, context: str | None = None,
                 timeout: float | None = DEFAULT_TIMEOUT) -> None:
        config = client_config()
        self.files = kubeconfig_files(kubeconfig)
        self.timeout = timeout
        if kubeconfig and not _existing(kubeconfig):
            raise InputError(f"--kubeconfig {kubeconfig}: no such file")
        if not _existing(self.files):
            where = "$KUBECONFIG" if os.environ.get("KUBECONFIG") and not kubeconfig else _shown(self.files)
            raise InputError(f"no kubeconfig found ({where}: no such file); give --kubeconfig FILE or set "
                             "KUBECONFIG to read a cluster")
        shown = _shown(self.files)
        self.context = self._pick(context, shown)
        try:
            self.client: Any = config.new_client_from_config(config_file=self.files, context=self.context,
                                                             persist_config=False,
                                                             client_configuration=_configuration())
        except Exception as e:  # the client raises ConfigException, YAML, OS and type errors on a bad file
            raise InputError(f"kubeconfig {shown}: context {self.context}: {_config_error(e)}") from None
        self.server = str(self.client.configuration.host)

    def _pick(self, context: str | None, shown: str) -> str:
        """The context to use: the one named (it must exist) or the current
        one, as kubectl takes them from the files: every context of every
        file, the current one from the first file that sets one (the
        client would take the last's)."""
        names: list[str] = []
        current = None
        for _path, doc in _read_configs(self.files):
            for c in doc.get("contexts") or []:
                name = c.get("name") if isinstance(c, dict) else None
                if isinstance(name, str) and name and name not in names:
                    names.append(name)
            current = current or doc.get("current-context") or None
        listed = ", ".join(names) or "none"
        if context is not None:
            if context not in names:
                raise InputError(f"context {context} not found in kubeconfig {shown} (contexts: {listed})")
            return context
        if not current:
            raise InputError(f"kubeconfig {shown} sets no current-context: give --context (contexts: {listed})")
        if str(current) not in names:
            raise InputError(f"kubeconfig {shown}: the current-context {current} is not one of its contexts "
                             f"({listed})")
        return str(current)

    @property
    def label(self) -> str:
        """How messages name the cluster: ``context NAME``."""
        return f"context {self.context}"

    def get(self, path: str, query: Sequence[tuple[str, str | int]] = ()) -> bytes:
        """The body of ``GET path?query`` (a 2xx answer); anything else is an
        :class:`InputError` (a :class:`StatusError` for an API status)."""
        import urllib3
        from kubernetes.client.exceptions import ApiException

        api = self.client
        request = api.param_serialize("GET", path, query_params=list(query) or None,
                                      header_params={"Accept": "application/json"}, auth_settings=["BearerToken"])
        timeout = (self.timeout, self.timeout) if self.timeout else None
        try:
            response = api.call_api(*request, _request_timeout=timeout)
            data: bytes = response.read()
        except ApiException as e:  # the client's wrapping of TLS and protocol errors
            raise InputError(f"cannot reach the API server {self.server} ({self.label}): "
                             f"{_short(str(e.reason or e))}") from None
        except urllib3.exceptions.HTTPError as e:
            raise InputError(f"cannot reach the API server {self.server} ({self.label}): {_short(_reason(e))}") \
                from None
        except OSError as e:
            raise InputError(f"cannot reach the API server {self.server} ({self.label}): {e.strerror or e}") \
                from None
        if 200 <= response.status < 300:
            return data
        raise self.status_error(path, response.status, data)

    def get_json(self, path: str, query: Sequence[tuple[str, str | int]] = ()) -> Any:
        data = self.get(path, query)
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            raise InputError(f"the API server {self.server} ({self.label}) answered GET {path} with something "
                             f"that is not JSON ({len(data)} bytes)") from None

    def status_error(self, path: str, code: int, data: bytes) -> StatusError:
        """The error for a failure status, with the server's own message."""
        try:
            body = orjson.loads(data)
        except orjson.JSONDecodeError:
            body = None
        if not isinstance(body, dict):
            body = {}
        reason = str(body.get("reason") or "")
        message = " ".join(str(body.get("message") or data[:200].decode("utf-8", "replace")).split())
        if code == 401:
            return StatusError(f"the API server {self.server} refused the credentials of {self.label} "
                               f"(401 Unauthorized{': ' + message if message and message != 'Unauthorized' else ''})",
                               code, reason or "Unauthorized")
        if code == 403:
            return StatusError(f"{message or 'forbidden: GET ' + path} (403 Forbidden, {self.label})", code,
                               reason or "Forbidden")
        return StatusError(f"the API server {self.server} ({self.label}) answered {code}"
                           f"{' ' + reason if reason else ''} to GET {path}: {message}", code, reason)


def _read_configs(files: str) -> list[tuple[str, dict[str, Any]]]:
    """Each kubeconfig file of the list that exists, parsed; one that is
    not YAML, or not a mapping, is an input error naming it."""
    import yaml

    out = []
    for path in _existing(files):
        try:
            with Path(path).expanduser().open(encoding="utf-8") as f:
                doc = yaml.safe_load(f)
        except yaml.MarkedYAMLError as e:
            mark = e.problem_mark
            where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
            raise InputError(f"kubeconfig {path}: not YAML: {e.problem or e.context}{where}") from None
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
            raise InputError(f"kubeconfig {path}: {_config_error(e)}") from None
        if doc is None:
            raise InputError(f"kubeconfig {path}: the file is empty")
        if not isinstance(doc, dict):
            raise InputError(f"kubeconfig {path}: not a kubeconfig (a mapping of clusters, users and contexts)")
        out.append((path, doc))
    return out


def _reason(e: BaseException) -> str:
    """The innermost reason urllib3 gives (a refused connection, a timeout)."""
    inner: Any = getattr(e, "reason", None)
    while isinstance(inner, BaseException) and getattr(inner, "reason", None) not in (None, inner):
        inner = getattr(inner, "reason")  # noqa: B009
    return str(inner if isinstance(inner, BaseException) else e)


_OBJECT_PREFIX = re.compile(r"(<[^>]*>|\w+Connection(Pool)?\(host=[^)]*\)):\s*")


def _short(text: str) -> str:
    """One line without urllib3's ``<...Connection object at 0x...>:`` and
    ``HTTPSConnection(host=..., port=...):`` prefixes."""
    text = _OBJECT_PREFIX.sub("", text)
    return " ".join(text.split())
