"""Bytes <-> model: readers with line numbers, atomic writers, schema export."""
