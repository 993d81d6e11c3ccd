"""EXIF metadata a person asks about: when, where, with what camera. Junk values are dropped, never fatal."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PIL import Image

_DATETIME_ORIGINAL, _DATETIME_DIGITIZED, _DATETIME = 0x9003, 0x9004, 0x0132
_OFFSET_ORIGINAL = 0x9011
_MAKE, _MODEL, _ORIENTATION, _LENS_MODEL = 0x010F, 0x0110, 0x0112, 0xA434
_EXIF_IFD, _GPS_IFD = 0x8769, 0x8825


def read_exif(image: Image.Image) -> dict:
    """{taken_at (ISO, local time as the camera wrote it), utc_offset, camera_make, camera_model, lens,
    latitude, longitude, altitude_m, orientation}: only the keys the photo really has."""
    try:
        exif = image.getexif()
    except Exception:  # a damaged EXIF block must not lose the photo
        return {}
    if not exif:
        return {}
    sub = _ifd(exif, _EXIF_IFD)
    out: dict = {}
    for tag, source in ((_DATETIME_ORIGINAL, sub), (_DATETIME_DIGITIZED, sub), (_DATETIME, exif)):
        taken = _datetime(source.get(tag))
        if taken:
            out["taken_at"] = taken
            break
    if isinstance(sub.get(_OFFSET_ORIGINAL), str):
        out["utc_offset"] = sub[_OFFSET_ORIGINAL].strip()
    for key, tag, source in (("camera_make", _MAKE, exif), ("camera_model", _MODEL, exif),
                             ("lens", _LENS_MODEL, sub)):
        text = _text(source.get(tag))
        if text:
            out[key] = text
    if isinstance(exif.get(_ORIENTATION), int) and 1 <= exif[_ORIENTATION] <= 8:
        out["orientation"] = exif[_ORIENTATION]
    out.update(_gps(_ifd(exif, _GPS_IFD)))
    return out


def _ifd(exif: Image.Exif, tag: int) -> dict:
    try:
        return dict(exif.get_ifd(tag))
    except Exception:
        return {}


def _text(value: object) -> str:
    if isinstance(value, bytes):
        value = value.decode("utf-8", "ignore")
    return " ".join(str(value).replace("\x00", " ").split()) if isinstance(value, str) else ""


def _datetime(value: object) -> str | None:
    text = _text(value)
    for fmt in ("%Y:%m:%d %H:%M:%S", "%Y-%m-%d %H:%M:%S", "%Y:%m:%d %H:%M", "%Y-%m-%dT%H:%M:%S"):
        try:
            when = dt.datetime.strptime(text[:19], fmt)
        except ValueError:
            continue
        if 1900 < when.year < 2200:  # "0000:00:00 00:00:00" and friends are cameras without a clock
            return when.isoformat()
    return None


def _degrees(value: object, ref: object) -> float | None:
    try:
        # any EXIF value: one that is not three numbers raises, and is dropped below
        d, m, s = (float(v) for v in value)  # type: ignore[attr-defined]
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    degrees = d + m / 60 + s / 3600
    return -degrees if _text(ref).upper() in ("S", "W") else degrees


def _gps(gps: dict) -> dict:
    out: dict = {}
    lat, lon = _degrees(gps.get(2), gps.get(1)), _degrees(gps.get(4), gps.get(3))
    if lat is not None and lon is not None and abs(lat) <= 90 and abs(lon) <= 180 and (lat, lon) != (0.0, 0.0):
        out["latitude"], out["longitude"] = round(lat, 6), round(lon, 6)
        try:
            altitude = float(gps[6])
            out["altitude_m"] = round(-altitude if gps.get(5) in (1, b"\x01") else altitude, 1)
        except (KeyError, TypeError, ValueError, ZeroDivisionError):
            pass
    return out
