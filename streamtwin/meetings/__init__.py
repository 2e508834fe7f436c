"""Past meetings asked a question: recordings read (:mod:`~streamtwin.meetings.library`), folded into transcripts
and twins (:mod:`~streamtwin.meetings.transcript`), laid out whole or in chunks (:mod:`~streamtwin.meetings.layout`),
answered (:mod:`~streamtwin.meetings.asking`) and their quotes checked (:mod:`~streamtwin.meetings.quotes`; the
reduce step's by :mod:`~streamtwin.meetings.evidence`); :mod:`~streamtwin.meetings.catalog` lists what a
server can be asked about."""
