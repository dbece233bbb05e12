// Name, versions and edition of the connected server.
// (no parameters)
CALL dbms.components() YIELD name, versions, edition
RETURN name, versions[0] AS version, edition
