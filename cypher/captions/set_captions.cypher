// Set the display caption of nodes found by their element id (graphforge.graphdb.captions).
// $rows: list<CaptionRow>
UNWIND $rows AS row
MATCH (n)
WHERE elementId(n) = row.id
SET n.caption = row.caption
RETURN count(*) AS written
