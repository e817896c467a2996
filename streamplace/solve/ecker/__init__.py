"""Ecker et al.'s latency-aware placement: the score, hill climbing, the ant system and
the hybrid."""
