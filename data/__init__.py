"""The bundled score dumps (``bundled/``) that ``scorehouse run`` ingests: package data, so an installed wheel has them."""
