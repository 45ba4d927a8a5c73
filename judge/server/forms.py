"""Upload forms: the fields and the one file of a multipart request, the file written to the
uploads directory as it arrives (bounded by the upload limit)."""

from __future__ import annotations

import uuid
from pathlib import Path

import trio
from fastapi import Request
from fastapi.exceptions import RequestValidationError
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException

from judge.server.service import BadRequest, ServiceError
from judge.server.uploads import UploadRefused, read_limited


async def receive_upload(
    request: Request, allowed: set[str], uploads_dir: Path, limit: int
) -> tuple[dict[str, str], Path, str, int]:
    """The form's text fields, the path its file was written to, the file's name and size.
    Fields outside ``allowed`` are refused (422); a bad form is a 400."""
    try:
        async with request.form(max_files=1, max_fields=8, max_part_size=4096) as form:
            unknown = sorted(set(form.keys()) - allowed)
            if unknown:
                raise RequestValidationError(
                    [
                        {"type": "extra_forbidden", "loc": ("body", name), "msg": "unknown"}
                        for name in unknown
                    ]
                )
            upload = form.get("file")
            if not isinstance(upload, UploadFile) or not upload.filename:
                raise BadRequest("the form needs a file field named 'file' with a file name")
            fields = {k: v for k, v in form.items() if isinstance(v, str)}
            dest = uploads_dir / f"{uuid.uuid4().hex}.upload"
            try:
                size = await trio.to_thread.run_sync(read_limited, upload.file, dest, limit)
            except UploadRefused as exc:
                dest.unlink(missing_ok=True)
                raise ServiceError(str(exc)) from None
            return fields, dest, upload.filename, size
    except HTTPException as exc:  # multipart parse errors; a body over the limit passes on
        if exc.status_code == 413:
            raise
        raise BadRequest(f"bad multipart form: {exc.detail}") from None
