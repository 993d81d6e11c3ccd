// Maya's family tree, typed in from mormor's notebook. Load it into any Cypher database.
CREATE CONSTRAINT IF NOT EXISTS FOR (p:Person) REQUIRE (p.name) IS UNIQUE;

CREATE (astrid:Person {name: 'Astrid Lindqvist', born: 1941, birthplace: 'Umeå', nickname: 'mormor'})
CREATE (gunnar:Person {name: 'Gunnar Lindqvist', born: 1938, died: 2019, birthplace: 'Luleå'})
CREATE (ingrid:Person {name: 'Ingrid de Vries', born: 1966, birthplace: 'Umeå'})
CREATE (erik:Person {name: 'Erik Lindqvist', born: 1969, birthplace: 'Umeå'})
CREATE (pieter:Person {name: 'Pieter de Vries', born: 1964, birthplace: 'Utrecht'})
CREATE (maya:Person {name: 'Maya Lindqvist', born: 1992, birthplace: 'Utrecht'})
CREATE (lars:Person {name: 'Lars de Vries', born: 1995, birthplace: 'Utrecht'})
CREATE (sofia:Person {name: 'Sofia Lindqvist', born: 2001, birthplace: 'Stockholm'})
CREATE (umea:Place {name: 'Umeå', country: 'Sweden'})
CREATE (utrecht:Place {name: 'Utrecht', country: 'Netherlands'})

CREATE
  (astrid)-[:MARRIED_TO {since: 1963}]->(gunnar),
  (ingrid)-[:MARRIED_TO {since: 1990}]->(pieter),
  (astrid)-[:PARENT_OF]->(ingrid), (gunnar)-[:PARENT_OF]->(ingrid),
  (astrid)-[:PARENT_OF]->(erik), (gunnar)-[:PARENT_OF]->(erik),
  (ingrid)-[:PARENT_OF]->(maya), (pieter)-[:PARENT_OF]->(maya),
  (ingrid)-[:PARENT_OF]->(lars), (pieter)-[:PARENT_OF]->(lars),
  (erik)-[:PARENT_OF]->(sofia),
  (astrid)-[:LIVES_IN]->(umea), (maya)-[:LIVES_IN]->(utrecht), (lars)-[:LIVES_IN]->(utrecht),
  (ingrid)-[:LIVES_IN]->(utrecht), (pieter)-[:LIVES_IN]->(utrecht);
