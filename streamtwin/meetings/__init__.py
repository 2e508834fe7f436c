"""Past meetings asked a question: recordings read (:mod:`~streamtwin.meetings.library`), folded into transcripts
and twins (:mod:`~streamtwin.meetings.transcript`), laid out whole or in chunks (:mod:`~streamtwin.meetings.layout`),
answered (:mod:`~streamtwin.meetings.asking`) and their quotes checked (:mod:`~streamtwin.meetings.quotes`)."""
