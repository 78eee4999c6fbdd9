"""MRC protocol facts in Python: constants and scapy layers.

``protocol.constants`` mirrors ``p4src/include/constants.p4`` and ``protocol.headers``
mirrors ``p4src/include/headers.p4``; ``tests/test_protocol_headers.py`` checks both pairs
agree. Import ``protocol.headers`` to get the layers bound into scapy's dissectors.
"""
